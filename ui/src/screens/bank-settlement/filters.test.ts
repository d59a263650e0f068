import { describe, expect, it } from 'vitest';
import en from '../../i18n/en.json';
import {
  ALL_FILTERS,
  clampTab,
  linkedFilters,
  defaultFilters,
  isTicketLookup,
  loadSavedFilters,
  loadTabIndex,
  reportParams,
  saveFilters,
  saveTabIndex,
  validateFilters,
  visibleFilters,
  type DashboardFilters,
} from './filters';
import { FOURTH_LEVEL, testLevel } from './levelFixtures';

const ticketTransaction = testLevel('ticket-transaction');
const transactionSettlement = testLevel('transaction-settlement');
const settlementBank = testLevel('settlement-bank');
const all = ALL_FILTERS;
const shownOn = visibleFilters;

const base: DashboardFilters = { fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: ['Nuvei'], clientUniqueId: '' };

describe('dashboard filters', () => {
  it('default to the first of the current month through today', () => {
    expect(defaultFilters(new Date(2026, 10, 24, 15, 30))).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: [], provider: [], clientUniqueId: '' });
    expect(defaultFilters(new Date(2026, 0, 1)).fromDate).toBe('2026-01-01');
  });

  it('show the filters each level applies: provider and ticket on the first two, neither on settlements vs bank', () => {
    expect(visibleFilters(ticketTransaction)).toEqual({ provider: true, ticket: true });
    expect(visibleFilters(transactionSettlement)).toEqual({ provider: true, ticket: true });
    expect(visibleFilters(settlementBank)).toEqual({ provider: false, ticket: false });
    expect(visibleFilters(FOURTH_LEVEL)).toEqual({ provider: false, ticket: true });
    expect(visibleFilters(null)).toEqual({ provider: false, ticket: false });
  });

  it('require both dates, in order, and a 13-digit ticket where the ticket is shown', () => {
    expect(validateFilters(base, all)).toBeNull();
    expect(validateFilters({ ...base, fromDate: '' }, all)).toEqual({ code: 'datesRequired', fields: ['fromDate'] });
    expect(validateFilters({ ...base, fromDate: '', toDate: '' }, shownOn(transactionSettlement))).toEqual({ code: 'datesRequired', fields: ['fromDate', 'toDate'] });
    expect(validateFilters({ ...base, fromDate: '2026-11-25' }, all)).toEqual({ code: 'dateOrder', fields: ['toDate'] });
    expect(validateFilters({ ...base, fromDate: '2026-11-24' }, all)).toBeNull(); // one day is a range
    expect(validateFilters({ ...base, clientUniqueId: '125440000001' }, all)).toEqual({ code: 'ticketNumber', fields: ['clientUniqueId'] });
    expect(validateFilters({ ...base, clientUniqueId: '12544000000123' }, shownOn(transactionSettlement))?.code).toBe('ticketNumber');
    expect(validateFilters({ ...base, clientUniqueId: '12544000000ab' }, shownOn(transactionSettlement))?.code).toBe('ticketNumber');
    expect(validateFilters({ ...base, clientUniqueId: '1254400000012' }, shownOn(transactionSettlement))).toBeNull();
    // Not applied on settlements vs bank: a half-typed ticket there does not block the other filters.
    expect(validateFilters({ ...base, clientUniqueId: '1254' }, shownOn(settlementBank))).toBeNull();
  });

  it('name messages the translation files hold, in the spec words', () => {
    expect(en.recon.errors.datesRequired).toBe('From Date and To Date are required.');
    expect(en.recon.errors.dateOrder).toBe('To Date cannot be earlier than From Date.');
    expect(en.recon.errors.ticketNumber).toBe('Please enter a valid ticket number (13 digits).');
  });

  it('swap in the ticket-only grid for a 13-digit ticket on a level with a lookup view only', () => {
    expect(isTicketLookup({ ...base, clientUniqueId: '1254400000012' }, ticketTransaction)).toBe(true);
    expect(isTicketLookup({ ...base, clientUniqueId: ' 1254400000012 ' }, ticketTransaction)).toBe(true);
    expect(isTicketLookup({ ...base, clientUniqueId: '1254400000012' }, transactionSettlement)).toBe(false);
    expect(isTicketLookup({ ...base, clientUniqueId: '1254400000012' }, FOURTH_LEVEL)).toBe(false);
    expect(isTicketLookup({ ...base, clientUniqueId: '125440000001' }, ticketTransaction)).toBe(false);
    expect(isTicketLookup(base, ticketTransaction)).toBe(false);
  });

  it('give each report only the filters its level applies', () => {
    const f = { ...base, clientUniqueId: '1254400000012' };
    expect(reportParams(f, ticketTransaction)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: ['Nuvei'], clientUniqueId: '1254400000012' });
    expect(reportParams(f, transactionSettlement)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: ['Nuvei'], clientUniqueId: '1254400000012' });
    expect(reportParams(f, settlementBank)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: [] });
    expect(reportParams(f, FOURTH_LEVEL)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: [], clientUniqueId: '1254400000012' });
  });

  it('are saved under dashboardFilters and read back, also in the spec shape of objects', () => {
    expect(loadSavedFilters(localStorage)).toBeNull();
    saveFilters(localStorage, base);
    expect(JSON.parse(localStorage.getItem('dashboardFilters')!)).toEqual(base);
    expect(loadSavedFilters(localStorage)).toEqual(base);
    localStorage.setItem('dashboardFilters', JSON.stringify({ fromDate: '2026-10-01T00:00:00Z', toDate: '2026-10-31', currency: [{ Id: 1, Code: 'EUR' }], provider: [{ Id: 2, TransProvider: 'amex' }] }));
    expect(loadSavedFilters(localStorage)).toEqual({ fromDate: '2026-10-01', toDate: '2026-10-31', currency: ['EUR'], provider: ['amex'], clientUniqueId: '' });
    localStorage.setItem('dashboardFilters', '{not json');
    expect(loadSavedFilters(localStorage)).toBeNull();
  });

  it('keep the active tab under bankSettlementTabIndex as an index into the levels, fitted to those there are', () => {
    expect(loadTabIndex(localStorage)).toBe(0);
    saveTabIndex(localStorage, 2);
    expect(localStorage.getItem('bankSettlementTabIndex')).toBe('2');
    expect(loadTabIndex(localStorage)).toBe(2);
    localStorage.setItem('bankSettlementTabIndex', '7');
    expect(loadTabIndex(localStorage)).toBe(7);
    expect(clampTab(7, 3)).toBe(2);
    expect(clampTab(3, 4)).toBe(3);
    localStorage.setItem('bankSettlementTabIndex', 'x');
    expect(loadTabIndex(localStorage)).toBe(0);
    localStorage.setItem('bankSettlementTabIndex', '-1');
    expect(loadTabIndex(localStorage)).toBe(0);
  });
});

describe('a link into the dashboard', () => {
  const base = { fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: [], clientUniqueId: '' };

  it('names nothing: the saved or default filters stay', () => {
    expect(linkedFilters(new URLSearchParams(''), base)).toBeNull();
    expect(linkedFilters(new URLSearchParams('other=1'), base)).toBeNull();
  });

  it('replaces what it names and keeps the rest, with the tab', () => {
    const got = linkedFilters(new URLSearchParams('tab=2&fromDate=2026-10-01&toDate=2026-10-31&provider=Nuvei,Amex'), base);
    expect(got).toEqual({
      filters: { fromDate: '2026-10-01', toDate: '2026-10-31', currency: ['USD'], provider: ['Nuvei', 'Amex'], clientUniqueId: '' },
      tab: 2,
    });
  });

  it('ignores a tab that is not an index; one past the levels is fitted later', () => {
    expect(linkedFilters(new URLSearchParams('tab=x&clientUniqueId=1254400000086'), base)?.tab).toBeNull();
    expect(linkedFilters(new URLSearchParams('tab=-1'), base)?.tab).toBeNull();
    expect(linkedFilters(new URLSearchParams('tab=7'), base)?.tab).toBe(7);
  });
});
