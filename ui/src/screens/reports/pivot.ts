/**
 * The bank overview as the server answers it (POST /reports/bank-overview, rows in data.data
 * keyed by column key) and what the pivot table does with it: sort with RowTotal always last,
 * the global text filter, paging, and the link from a cell to the bookings it sums.
 */
import { compareDecimal, formatDecimal } from '../../lib/decimal';
import { datePattern, formatDate, fromIsoDate } from '../../lib/dates';
import type { BankOverviewParams } from './bankOverviewParams';

export const ROW_TOTAL = 'RowTotal';
export const PAGE_SIZES = [25, 50, 75, 100] as const;
export const DEFAULT_PAGE_SIZE = 100;

export interface PivotColumn {
  key: string;
  kind: 'period' | 'actor' | 'total';
  /** The actor of an actor column; absent for bookings without one. */
  actor?: string;
}

/** Amounts are exact decimal strings, or null where nothing was booked. */
export type PivotRow = Record<string, string | number | null> & { Period: string; PeriodFrom: string; PeriodTo: string };

export interface BankOverview {
  parameters: BankOverviewParams;
  columns: PivotColumn[];
  data: PivotRow[];
}

export type SortOrder = 'asc' | 'desc';
export interface SortState {
  key: string;
  order: SortOrder;
}

/** A header click: the same column toggles its direction, another starts ascending. */
export function nextSort(current: SortState | null, key: string): SortState {
  return current && current.key === key ? { key, order: current.order === 'asc' ? 'desc' : 'asc' } : { key, order: 'asc' };
}

function compareValues(a: unknown, b: unknown, numeric: boolean): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (numeric) return compareDecimal(String(a), String(b));
  return String(a).localeCompare(String(b));
}

/** Rows sorted by a column; the RowTotal row stays last whatever the order. */
export function sortRows(rows: PivotRow[], sort: SortState | null): PivotRow[] {
  const body = rows.filter((r) => r.Period !== ROW_TOTAL);
  const total = rows.filter((r) => r.Period === ROW_TOTAL);
  if (sort) {
    const numeric = sort.key !== 'Period';
    const sign = sort.order === 'asc' ? 1 : -1;
    body.sort((a, b) => sign * compareValues(a[sort.key], b[sort.key], numeric));
  }
  return [...body, ...total];
}

/**
 * A period as the reader sees it, in their date format: a day (2026-03-14) as the format writes
 * it (14-03-2026 in DD-MM-YYYY), a month (2026-03) as the format without its day (03-2026); a
 * year, half, quarter or week (2026, 2026-H1, 2026-Q3, 2026-W09) as the server names it.
 */
export function periodLabel(period: string, dateFormat: string | null | undefined): string {
  const pattern = datePattern(dateFormat);
  if (/^\d{4}-\d{2}-\d{2}$/.test(period)) {
    const day = fromIsoDate(period);
    return day ? formatDate(day, pattern) : period;
  }
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (!month) return period;
  // The day and the separator beside it leave the pattern: DD-MM-YYYY -> MM-YYYY, YYYY/MM/DD -> YYYY/MM.
  return pattern.replace(/DD[-/]|[-/]DD/, '').replace('YYYY', month[1]!).replace('MM', month[2]!);
}

/**
 * The global text filter: rows whose period or any shown amount (as the reader sees it, in
 * their language and date format: `periodText`) contains the text. RowTotal stays while any
 * row is left.
 */
export function filterRows(
  rows: PivotRow[],
  columns: PivotColumn[],
  text: string,
  locale: string,
  totalLabel: string,
  periodText: (period: string) => string = (p) => p,
): PivotRow[] {
  const needle = text.trim().toLocaleLowerCase(locale);
  if (!needle) return rows;
  const matches = (row: PivotRow) =>
    columns.some((c) => {
      const v = row[c.key];
      const shown = c.kind === 'period' ? (v === ROW_TOTAL ? totalLabel : periodText(String(v))) : formatAmount(v, locale);
      return shown.toLocaleLowerCase(locale).includes(needle);
    });
  const body = rows.filter((r) => r.Period !== ROW_TOTAL && matches(r));
  return body.length > 0 ? [...body, ...rows.filter((r) => r.Period === ROW_TOTAL)] : [];
}

/** 2 decimals with the language's separators; empty for no bookings. */
export function formatAmount(value: unknown, locale: string): string {
  return value === null || value === undefined ? '' : formatDecimal(value, 2, locale);
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

export function pageOf<T>(rows: T[], page: number, pageSize: number): T[] {
  return rows.slice((page - 1) * pageSize, page * pageSize);
}

/**
 * The processed bank files screen filtered to the bookings a cell sums: its period (BookedDate
 * as from..to), its actor (empty: bookings without one) and the overview's parameters.
 */
export function bookingsLink(row: PivotRow, column: PivotColumn, params: BankOverviewParams): string {
  const q = new URLSearchParams({ tab: 'bankFiles', BookedDate: `${row.PeriodFrom}..${row.PeriodTo}` });
  q.set('InorOut', params.inOutFilter === 'In' ? 'IN' : 'OUT');
  if (params.distribRvnFilter !== 'All') q.set('DistRvnSettle', params.distribRvnFilter);
  if (params.distribDriverFilter !== 'All') q.set('DistrDriver', params.distribDriverFilter);
  if (params.affectsBalanceFilter !== 'All') q.set('AffectsBalance', params.affectsBalanceFilter);
  if (column.kind === 'actor') q.set('Actor', column.actor ?? '');
  return `/dashboard/csvprocessed?${q.toString()}`;
}
