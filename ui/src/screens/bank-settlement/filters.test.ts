import { describe, expect, it } from 'vitest';
import en from '../../i18n/en.json';
import {
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

const base: DashboardFilters = { fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: ['Nuvei'], clientUniqueId: '' };

describe('dashboard filters', () => {
  it('default to the first of the current month through today', () => {
    expect(defaultFilters(new Date(2026, 10, 24, 15, 30))).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: [], provider: [], clientUniqueId: '' });
    expect(defaultFilters(new Date(2026, 0, 1)).fromDate).toBe('2026-01-01');
  });

  it('show provider and ticket on tabs 1 and 2, neither on settlements vs bank', () => {
    expect(visibleFilters(0)).toEqual({ provider: true, ticket: true });
    expect(visibleFilters(1)).toEqual({ provider: true, ticket: true });
    expect(visibleFilters(2)).toEqual({ provider: false, ticket: false });
  });

  it('require both dates, in order, and a 13-digit ticket where the ticket is shown', () => {
    expect(validateFilters(base, 0)).toBeNull();
    expect(validateFilters({ ...base, fromDate: '' }, 0)).toEqual({ code: 'datesRequired', fields: ['fromDate'] });
    expect(validateFilters({ ...base, fromDate: '', toDate: '' }, 1)).toEqual({ code: 'datesRequired', fields: ['fromDate', 'toDate'] });
    expect(validateFilters({ ...base, fromDate: '2026-11-25' }, 0)).toEqual({ code: 'dateOrder', fields: ['toDate'] });
    expect(validateFilters({ ...base, fromDate: '2026-11-24' }, 0)).toBeNull(); // one day is a range
    expect(validateFilters({ ...base, clientUniqueId: '125440000001' }, 0)).toEqual({ code: 'ticketNumber', fields: ['clientUniqueId'] });
    expect(validateFilters({ ...base, clientUniqueId: '12544000000123' }, 1)?.code).toBe('ticketNumber');
    expect(validateFilters({ ...base, clientUniqueId: '12544000000ab' }, 1)?.code).toBe('ticketNumber');
    expect(validateFilters({ ...base, clientUniqueId: '1254400000012' }, 1)).toBeNull();
    // Hidden on tab 3: a half-typed ticket there does not block the other filters.
    expect(validateFilters({ ...base, clientUniqueId: '1254' }, 2)).toBeNull();
  });

  it('name messages the translation files hold, in the spec words', () => {
    expect(en.recon.errors.datesRequired).toBe('From Date and To Date are required.');
    expect(en.recon.errors.dateOrder).toBe('To Date cannot be earlier than From Date.');
    expect(en.recon.errors.ticketNumber).toBe('Please enter a valid ticket number (13 digits).');
  });

  it('swap in the ticket-only grid for a 13-digit ticket on tab 1 only', () => {
    expect(isTicketLookup({ ...base, clientUniqueId: '1254400000012' }, 0)).toBe(true);
    expect(isTicketLookup({ ...base, clientUniqueId: ' 1254400000012 ' }, 0)).toBe(true);
    expect(isTicketLookup({ ...base, clientUniqueId: '1254400000012' }, 1)).toBe(false);
    expect(isTicketLookup({ ...base, clientUniqueId: '125440000001' }, 0)).toBe(false);
    expect(isTicketLookup(base, 0)).toBe(false);
  });

  it('give each report only what its tab shows', () => {
    const f = { ...base, clientUniqueId: '1254400000012' };
    expect(reportParams(f, 0)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: ['Nuvei'], clientUniqueId: '1254400000012' });
    expect(reportParams(f, 1)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: ['Nuvei'], clientUniqueId: '1254400000012' });
    expect(reportParams(f, 2)).toEqual({ fromDate: '2026-11-01', toDate: '2026-11-24', currency: ['USD'], provider: [] });
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

  it('keep the active tab under bankSettlementTabIndex, tab 1 for anything else', () => {
    expect(loadTabIndex(localStorage)).toBe(0);
    saveTabIndex(localStorage, 2);
    expect(localStorage.getItem('bankSettlementTabIndex')).toBe('2');
    expect(loadTabIndex(localStorage)).toBe(2);
    localStorage.setItem('bankSettlementTabIndex', '7');
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

  it('ignores a tab that does not exist', () => {
    expect(linkedFilters(new URLSearchParams('tab=7&clientUniqueId=1254400000086'), base)?.tab).toBeNull();
  });
});
