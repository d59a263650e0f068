/**
 * The dashboard's filter rules (spec 03 sections 2.1, 3.1, 5 and 9): defaults, validation with
 * the spec's three messages, which filter each level shows (its declared `filters`), the saved
 * filters and tab index in local storage, and the params each level's report gets. Pure
 * functions, no React, no clock of their own (callers pass `today`).
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

/** What of a level the filters need: the filters it applies and its ticket-only lookup view. */
export interface FilteredLevel {
  filters: readonly string[];
  lookupView?: string | null;
}

export interface VisibleFilters {
  provider: boolean;
  ticket: boolean;
}

/** Every filter: the saved filters are checked against these before any level is known. */
export const ALL_FILTERS: VisibleFilters = { provider: true, ticket: true };

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

/** The filter fields a level shows: those it applies (recon.yaml `filters`); none before it is known. */
export function visibleFilters(level: FilteredLevel | null | undefined): VisibleFilters {
  const applied = level?.filters ?? [];
  return { provider: applied.includes('provider'), ticket: applied.includes('ticket') };
}

export type FilterErrorCode = 'datesRequired' | 'dateOrder' | 'ticketNumber';

export interface FilterError {
  /** Translation key recon.errors.<code>; the server uses the same codes (recon.<code>). */
  code: FilterErrorCode;
  /** The fields to highlight. */
  fields: Array<keyof DashboardFilters>;
}

/**
 * The first problem of the filters with the fields shown, or null. The ticket number counts
 * only where it is shown.
 */
export function validateFilters(f: DashboardFilters, shown: VisibleFilters): FilterError | null {
  const missing: Array<keyof DashboardFilters> = [];
  if (!f.fromDate) missing.push('fromDate');
  if (!f.toDate) missing.push('toDate');
  if (missing.length) return { code: 'datesRequired', fields: missing };
  if (f.toDate < f.fromDate) return { code: 'dateOrder', fields: ['toDate'] };
  const ticket = f.clientUniqueId.trim();
  if (shown.ticket && ticket !== '' && !TICKET_PATTERN.test(ticket)) return { code: 'ticketNumber', fields: ['clientUniqueId'] };
  return null;
}

/** A 13-digit ticket swaps the match rows for the ticket-only lookup grid, on a level that has one. */
export function isTicketLookup(f: DashboardFilters, level: FilteredLevel): boolean {
  return !!level.lookupView && TICKET_PATTERN.test(f.clientUniqueId.trim());
}

/** The report params of a level: only the filters it applies. */
export function reportParams(f: DashboardFilters, level: FilteredLevel): Record<string, unknown> {
  const shown = visibleFilters(level);
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

/** A tab index as written (a whole number from 0), or null. */
function tabNumber(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value);
}

/** The saved tab: an index into the levels (clampTab fits it to those there are), 0 when none is saved. */
export function loadTabIndex(storage: Storage): number {
  return tabNumber(storage.getItem(TAB_KEY)) ?? 0;
}

export function saveTabIndex(storage: Storage, tab: number): void {
  storage.setItem(TAB_KEY, String(tab));
}

/** A tab index fitted to the levels there are: the last one when it is past them. */
export function clampTab(tab: number, count: number): number {
  return Math.max(0, Math.min(tab, count - 1));
}

/**
 * Filters and tab from a link into the screen (the home screen's figures link here as
 * #/dashboard/bank-settlement?tab=0&fromDate=...&toDate=...): the values the link names replace
 * those of base; null when the link names none. Bad values are left to validation.
 */
export function linkedFilters(search: URLSearchParams, base: DashboardFilters): { filters: DashboardFilters; tab: number | null } | null {
  const names = ['tab', 'fromDate', 'toDate', 'currency', 'provider', 'clientUniqueId'];
  if (!names.some((n) => search.has(n))) return null;
  const list = (name: string, fallback: string[]) =>
    search.has(name) ? (search.get(name) ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '') : fallback;
  return {
    filters: {
      fromDate: search.get('fromDate') ?? base.fromDate,
      toDate: search.get('toDate') ?? base.toDate,
      currency: list('currency', base.currency),
      provider: list('provider', base.provider),
      clientUniqueId: search.get('clientUniqueId') ?? base.clientUniqueId,
    },
    tab: tabNumber(search.get('tab')),
  };
}
