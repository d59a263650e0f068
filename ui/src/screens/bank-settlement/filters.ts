/**
 * The dashboard's filter rules (spec 03 sections 2.1, 3.1, 5 and 9): defaults, validation with
 * the spec's three messages, which filter each tab shows, the saved filters and tab index in
 * local storage, and the params each tab's report gets. Pure functions, no React, no clock of
 * their own (callers pass `today`).
 */
import { SessionKeys } from '../../auth/session';
import { toIsoDate } from '../../lib/dates';

export interface DashboardFilters {
  /** yyyy-MM-dd, or '' when cleared. */
  fromDate: string;
  toDate: string;
  /** Currency codes and provider names (spec 3.1: sent as Code and TransProvider values). */
  currency: string[];
  provider: string[];
  /** The ticket number (clientUniqueId). */
  clientUniqueId: string;
}

export const FILTERS_KEY = SessionKeys.dashboardFilters;
export const TAB_KEY = SessionKeys.bankSettlementTabIndex;
export const TICKET_LENGTH = 13;
const TICKET_PATTERN = /^\d{13}$/;

/** Spec 9: the lists offered until the server's arrive. */
export const DEFAULT_PROVIDERS = ['nuvei', 'amex', 'usarc'];
export const DEFAULT_CURRENCIES = ['USD'];

/** Tab indexes: 0 tickets vs transactions, 1 transactions vs settlements, 2 settlements vs bank. */
export type TabIndex = 0 | 1 | 2;

/** The first of the current month to today. */
export function defaultFilters(today: Date): DashboardFilters {
  return {
    fromDate: toIsoDate(new Date(today.getFullYear(), today.getMonth(), 1)),
    toDate: toIsoDate(today),
    currency: [],
    provider: [],
    clientUniqueId: '',
  };
}

/** The filter fields a tab shows (issue 12: provider hidden on tab 2, ticket hidden on tab 2). */
export function visibleFilters(tab: TabIndex): { provider: boolean; ticket: boolean } {
  return { provider: tab !== 2, ticket: tab !== 2 };
}

export type FilterErrorCode = 'datesRequired' | 'dateOrder' | 'ticketNumber';

export interface FilterError {
  /** Translation key recon.errors.<code>; the server uses the same codes (recon.<code>). */
  code: FilterErrorCode;
  /** The fields to highlight. */
  fields: Array<keyof DashboardFilters>;
}

/**
 * The first problem of the filters as a tab applies them, or null. The ticket number counts
 * only where the tab shows it.
 */
export function validateFilters(f: DashboardFilters, tab: TabIndex): FilterError | null {
  const missing: Array<keyof DashboardFilters> = [];
  if (!f.fromDate) missing.push('fromDate');
  if (!f.toDate) missing.push('toDate');
  if (missing.length) return { code: 'datesRequired', fields: missing };
  if (f.toDate < f.fromDate) return { code: 'dateOrder', fields: ['toDate'] };
  const ticket = f.clientUniqueId.trim();
  if (visibleFilters(tab).ticket && ticket !== '' && !TICKET_PATTERN.test(ticket)) return { code: 'ticketNumber', fields: ['clientUniqueId'] };
  return null;
}

/** A 13-digit ticket on tab 0 swaps the match rows for the ticket-only lookup grid. */
export function isTicketLookup(f: DashboardFilters, tab: TabIndex): boolean {
  return tab === 0 && TICKET_PATTERN.test(f.clientUniqueId.trim());
}

/** The report params of a tab: what the tab hides is not applied. */
export function reportParams(f: DashboardFilters, tab: TabIndex): Record<string, unknown> {
  const shown = visibleFilters(tab);
  return {
    fromDate: f.fromDate,
    toDate: f.toDate,
    currency: f.currency,
    provider: shown.provider ? f.provider : [],
    ...(shown.ticket ? { clientUniqueId: f.clientUniqueId.trim() } : {}),
  };
}

function stringList(value: unknown, key: 'Code' | 'TransProvider'): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((v: unknown) => (typeof v === 'string' ? v : v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined))
    .filter((v): v is string => typeof v === 'string' && v !== '');
}

/** The saved filters, or null when none are saved (or they cannot be read). */
export function loadSavedFilters(storage: Storage): DashboardFilters | null {
  try {
    const raw = storage.getItem(FILTERS_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Record<string, unknown>;
    const text = (x: unknown) => (typeof x === 'string' ? x.slice(0, 10) : '');
    return {
      fromDate: text(v.fromDate),
      toDate: text(v.toDate),
      currency: stringList(v.currency, 'Code'),
      provider: stringList(v.provider, 'TransProvider'),
      clientUniqueId: typeof v.clientUniqueId === 'string' ? v.clientUniqueId : '',
    };
  } catch {
    return null;
  }
}

export function saveFilters(storage: Storage, f: DashboardFilters): void {
  storage.setItem(FILTERS_KEY, JSON.stringify(f));
}

export function loadTabIndex(storage: Storage): TabIndex {
  const n = Number(storage.getItem(TAB_KEY));
  return n === 1 || n === 2 ? n : 0;
}

export function saveTabIndex(storage: Storage, tab: TabIndex): void {
  storage.setItem(TAB_KEY, String(tab));
}

/**
 * Filters and tab from a link into the screen (the home screen's figures link here as
 * #/dashboard/bank-settlement?tab=0&fromDate=...&toDate=...): the values the link names replace
 * those of base; null when the link names none. Bad values are left to validation.
 */
export function linkedFilters(search: URLSearchParams, base: DashboardFilters): { filters: DashboardFilters; tab: TabIndex | null } | null {
  const names = ['tab', 'fromDate', 'toDate', 'currency', 'provider', 'clientUniqueId'];
  if (!names.some((n) => search.has(n))) return null;
  const list = (name: string, fallback: string[]) =>
    search.has(name) ? (search.get(name) ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '') : fallback;
  const n = Number(search.get('tab'));
  return {
    filters: {
      fromDate: search.get('fromDate') ?? base.fromDate,
      toDate: search.get('toDate') ?? base.toDate,
      currency: list('currency', base.currency),
      provider: list('provider', base.provider),
      clientUniqueId: search.get('clientUniqueId') ?? base.clientUniqueId,
    },
    tab: search.has('tab') && (n === 0 || n === 1 || n === 2) ? n : null,
  };
}
