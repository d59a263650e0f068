/**
 * The rules of the tasks screen and the task editor that do not need React: the spec's sort-field
 * mapping, the paged-list query (page, pageSize, sort 'Field asc', filters 'field:value;...'),
 * paging bounds, the column preferences kept per user, the id text fields and the balance and
 * adjustment defaults (spec 03 sections 2.2, 2.3, 5, 7.2, 9).
 */
import type { TFunction } from 'i18next';
import { fromCents, toCents } from '../../lib/decimal';
import { defaultLayout, moveKey, sanitizeLayout, type LayoutColumn } from '../../engine/grid/columnLayout';

export { MIN_COLUMN_WIDTH } from '../../engine/grid/columnLayout';

export const PAGE_SIZES = [10, 20, 50] as const;
export const DEFAULT_PAGE_SIZE = 20;
export const FILTER_DEBOUNCE_MS = 300;
export const DEFAULT_COLUMN_WIDTH = 120;
/** A date and time (and its date filter, a picker in the user's format) needs more. */
export const DATETIME_COLUMN_WIDTH = 160;
/** The server-side preference key of the task grid. */
export const PREFS_KEY = 'tasks.grid';

export type SortOrder = 'asc' | 'desc';
export interface SortState {
  column: string;
  order: SortOrder;
}

/**
 * Spec 03 section 7.2: taskName to TaskName; assignee to AssignedToId; status to IsStatus;
 * priority, createdOn, updatedOn, remarks to their capitalised names; any other column sorts by Id.
 */
export function sortField(column: string): string {
  switch (column) {
    case 'taskName':
      return 'TaskName';
    case 'assignee':
    case 'assignedToName':
    case 'assignedToId':
      return 'AssignedToId';
    case 'status':
    case 'statusLabel':
    case 'isStatus':
      return 'IsStatus';
    case 'priority':
    case 'createdOn':
    case 'updatedOn':
    case 'remarks':
      return column.charAt(0).toUpperCase() + column.slice(1);
    default:
      return 'Id';
  }
}

/** A header click: a new column sorts ascending, the same column toggles. */
export function nextSort(current: SortState | null, column: string): SortState {
  if (current?.column === column) return { column, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { column, order: 'asc' };
}

/** The field a column's filter applies to: the status label filters by its number. */
export function filterField(column: string): string {
  return column === 'statusLabel' ? 'isStatus' : column;
}

/** 'field:value' pairs joined by ';' (empty values left out; ';' cannot be part of a value). */
export function filterText(filters: Record<string, string>): string {
  return Object.entries(filters)
    .map(([column, value]) => [filterField(column), value.replace(/;/g, ' ').trim()] as const)
    .filter(([, value]) => value !== '')
    .map(([field, value]) => `${field}:${value}`)
    .join(';');
}

export interface ListQuery {
  page: number;
  pageSize: number;
  sort: SortState | null;
  filters: Record<string, string>;
}

/** The query string of GET /TaskTT/paged (and of the export, without paging). */
export function pagedQuery(q: ListQuery, paged = true): URLSearchParams {
  const params = new URLSearchParams();
  if (paged) {
    params.set('page', String(q.page));
    params.set('pageSize', String(q.pageSize));
  }
  if (q.sort) params.set('sort', `${sortField(q.sort.column)} ${q.sort.order}`);
  const filters = filterText(q.filters);
  if (filters) params.set('filters', filters);
  return params;
}

/** Total pages: at least 1 (spec 03 section 5). */
export function totalPages(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, pageSize)));
}

/** A page kept between 1 and the last page. */
export function clampPage(page: number, total: number, pageSize: number): number {
  return Math.min(Math.max(1, Math.floor(page) || 1), totalPages(total, pageSize));
}

// ---- columns and their preferences -----------------------------------------------------------

export type ColumnKind = 'text' | 'int' | 'amount' | 'datetime' | 'status';

export interface TaskColumn {
  key: string;
  kind: ColumnKind;
  editable?: boolean;
  hiddenByDefault?: boolean;
}

/** The task table's columns (spec 03 section 3.5) in their default order. */
export const TASK_COLUMNS: TaskColumn[] = [
  { key: 'id', kind: 'int', hiddenByDefault: true },
  { key: 'taskName', kind: 'text', editable: true },
  { key: 'assignedToName', kind: 'text' },
  { key: 'statusLabel', kind: 'status' },
  { key: 'remarks', kind: 'text', editable: true },
  { key: 'priority', kind: 'int', hiddenByDefault: true },
  { key: 'ticketCount', kind: 'int', hiddenByDefault: true },
  { key: 'transactionCount', kind: 'int', hiddenByDefault: true },
  { key: 'totalAmount', kind: 'amount' },
  { key: 'balance', kind: 'amount' },
  { key: 'createdBy', kind: 'text', hiddenByDefault: true },
  { key: 'createdOn', kind: 'datetime' },
  { key: 'updatedOn', kind: 'datetime' },
  { key: 'assignedToId', kind: 'int', hiddenByDefault: true },
  { key: 'isStatus', kind: 'int', hiddenByDefault: true },
];

/** What the user set up: stored on the server, so it follows them to another browser. */
export interface GridPrefs {
  order: string[];
  widths: Record<string, number>;
  hidden: string[];
  filters: Record<string, string>;
  pageSize: number;
}

/** The task columns as the shared layout rules read them. */
const LAYOUT_COLUMNS: LayoutColumn[] = TASK_COLUMNS.map((c) => ({ key: c.key, hidden: c.hiddenByDefault }));

export function defaultPrefs(): GridPrefs {
  const { order, hidden } = defaultLayout(LAYOUT_COLUMNS);
  return { order, widths: {}, hidden, filters: {}, pageSize: DEFAULT_PAGE_SIZE };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Stored preferences made safe to use: the columns by the grids' shared layout rules
 * (engine/grid/columnLayout: unknown columns dropped, columns added since kept in their default
 * place at the end, widths within the bounds), filters of known columns, the page size one of the
 * options.
 */
export function normalizePrefs(stored: unknown): GridPrefs {
  const out = defaultPrefs();
  if (!isRecord(stored)) return out;
  const { order, hidden, widths } = sanitizeLayout(stored, LAYOUT_COLUMNS, { newColumns: 'end' });
  Object.assign(out, { order, hidden, widths });
  const known = new Set(out.order);
  if (isRecord(stored.filters)) {
    for (const [k, v] of Object.entries(stored.filters)) if (known.has(k) && typeof v === 'string' && v !== '') out.filters[k] = v;
  }
  if (typeof stored.pageSize === 'number' && (PAGE_SIZES as readonly number[]).includes(stored.pageSize)) out.pageSize = stored.pageSize;
  return out;
}

export function columnWidth(prefs: GridPrefs, key: string): number {
  return prefs.widths[key] ?? (TASK_COLUMNS.find((c) => c.key === key)?.kind === 'datetime' ? DATETIME_COLUMN_WIDTH : DEFAULT_COLUMN_WIDTH);
}

/** The order after dropping `moved` on `target` (it takes the target's place): the grids' shared rule. */
export const moveColumn = moveKey;

// ---- the editor -----------------------------------------------------------------------------

/** Comma-separated digit-only ids: the ids, or null when any part is not digits. */
export function parseIds(text: string): number[] | null {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) === 0)) return null;
  return parts.map(Number);
}

export function idsText(ids: readonly number[] | null | undefined): string {
  return (ids ?? []).join(', ');
}

export function sumAmounts(amounts: ReadonlyArray<string | number | null | undefined>): string {
  return fromCents(amounts.reduce<bigint>((sum, a) => sum + (toCents(a) ?? 0n), 0n));
}

/** Spec 03 section 5: the balance is the ticket total minus the transaction total, to 2 decimals. */
export function balance(ticketAmounts: ReadonlyArray<string | number>, transactionAmounts: ReadonlyArray<string | number>): string {
  return fromCents((toCents(sumAmounts(ticketAmounts)) ?? 0n) - (toCents(sumAmounts(transactionAmounts)) ?? 0n));
}

/** Today as yyyy-MM-dd in the user's time zone. */
export function todayIso(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export interface AdjustmentDraft {
  ticketId: number | null;
  amount: string;
  date: string;
  currency: string;
  remarks: string;
}

/**
 * The manual adjustment dialog's defaults: the amount is the balance rounded to 2 decimals,
 * the date today, the ticket the only one when there is one, the currency that ticket's (or
 * the tickets' when they share one).
 */
export function adjustmentDefaults(
  tickets: ReadonlyArray<{ ticketId: number; localFareCurrency: string }>,
  balanceAmount: string,
  now: Date = new Date(),
): AdjustmentDraft {
  const only = tickets.length === 1 ? tickets[0] : undefined;
  const cents = toCents(balanceAmount);
  // the currency is the ticket's: known before one is chosen when the tickets share it
  const currencies = new Set(tickets.map((k) => k.localFareCurrency));
  return {
    ticketId: only?.ticketId ?? null,
    amount: cents === null ? '' : fromCents(cents),
    date: todayIso(now),
    currency: only?.localFareCurrency ?? (currencies.size === 1 ? ([...currencies][0] ?? '') : ''),
    remarks: '',
  };
}

/** An amount the server takes: not negative, at most 2 decimals, more than 0. */
export function validAdjustmentAmount(text: string): boolean {
  return /^\d{1,18}(\.\d{1,2})?$/.test(text.trim()) && (toCents(text) ?? 0n) > 0n;
}

/**
 * Spec 03 section 4: the name of a task raised from the reconciliation details, "Reconciliation
 * Review (nT / nX)" in English, in the reader's language otherwise (tasks.autoName). The name is
 * stored as it was proposed: a task keeps the language of the one who raised it.
 */
export function autoTaskName(t: TFunction, tickets: number, transactions: number): string {
  return t('tasks.autoName', { tickets, transactions });
}
