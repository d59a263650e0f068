/**
 * What an engine grid keeps per user on the server (PUT /api/preferences/grid.<view>): its column
 * layout (columnLayout.ts) and its saved filter sets, the NocoDB / Directus "views": a name for
 * a set of column filters and a sort. One preference key per grid holds both, so a user's grids
 * use half as many of the keys the server allows each user (PREFERENCE_KEYS).
 *
 * Stored shape: { layout?: ColumnLayout, filterSets?: FilterSet[] }. No layout means the
 * default one, so a default declared in views.yaml later (a pinned column) still applies.
 */
import type { FilterInput } from '../fields';
import type { FilterOp, ViewMeta } from '../types';
import type { UserSort } from '../useGrid';
import { sanitizeLayout, type ColumnLayout, type LayoutColumn } from './columnLayout';
import { statusFilterColumn } from './rowStatus';

export const MAX_FILTER_SETS = 20;
export const MAX_SET_NAME = 60;

export interface FilterSet {
  name: string;
  filters: Record<string, FilterInput>;
  /** null: the view's default sort. */
  sort: UserSort | null;
}

export interface GridPrefs {
  /** null: the default layout (the user set nothing up, or reset it). */
  layout: ColumnLayout | null;
  filterSets: FilterSet[];
}

export const EMPTY_PREFS: GridPrefs = { layout: null, filterSets: [] };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The preference key of a view's grid. The server takes ^[a-z0-9][a-z0-9._-]{0,63}$: view names
 * (VW_TblMasterCountry) lower-case into it; any other character becomes a dash.
 */
export function prefsKey(viewName: string): string {
  return `grid.${viewName.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}`.slice(0, 64);
}

/**
 * The columns a user may arrange: the view's visible ones in metadata order, with its default
 * pins. The rowStatus field is left out: the grid shows it as the frozen Status column, first.
 */
export function layoutColumns(view: ViewMeta): LayoutColumn[] {
  return view.columns.filter((c) => !c.hidden && c.field !== view.rowStatus?.field).map((c) => ({ key: c.field, pinned: c.pinned === true }));
}

/** The operators a filter set may hold per field: what the grid's filter popovers can set. */
function filterableOps(view: ViewMeta): Map<string, ReadonlySet<FilterOp>> {
  const out = new Map<string, ReadonlySet<FilterOp>>();
  for (const c of view.columns) if (!c.hidden) out.set(c.field, new Set(c.ops));
  const status = statusFilterColumn(view);
  if (status) out.set(status.field, new Set([...(out.get(status.field) ?? []), ...status.ops]));
  return out;
}

function sortableFields(view: ViewMeta): Set<string> {
  const out = new Set(view.columns.filter((c) => !c.hidden && c.sortable).map((c) => c.field));
  if (view.rowStatus) out.add(view.rowStatus.field); // the Status column sorts by its field
  return out;
}

function sanitizeFilter(stored: unknown, ops: ReadonlySet<FilterOp> | undefined): FilterInput | null {
  if (!ops || !isRecord(stored) || typeof stored.op !== 'string' || !ops.has(stored.op as FilterOp)) return null;
  const out: FilterInput = { op: stored.op as FilterOp, value: typeof stored.value === 'string' ? stored.value : '' };
  if (typeof stored.to === 'string') out.to = stored.to;
  if (Array.isArray(stored.values)) out.values = stored.values.filter((v): v is string => typeof v === 'string');
  return out;
}

function sanitizeSort(stored: unknown, view: ViewMeta): UserSort | null {
  if (!isRecord(stored) || typeof stored.field !== 'string' || !sortableFields(view).has(stored.field)) return null;
  return stored.order === 'asc' || stored.order === 'desc' ? { field: stored.field, order: stored.order } : null;
}

/**
 * Stored filter sets made safe to use: a name (trimmed, at most MAX_SET_NAME characters, the
 * first of a name kept), filters only on the view's filterable fields with their operators, a
 * sort only by a sortable field; at most MAX_FILTER_SETS.
 */
export function sanitizeFilterSets(stored: unknown, view: ViewMeta): FilterSet[] {
  if (!Array.isArray(stored)) return [];
  const ops = filterableOps(view);
  const out: FilterSet[] = [];
  for (const item of stored) {
    if (!isRecord(item) || typeof item.name !== 'string') continue;
    const name = item.name.trim().slice(0, MAX_SET_NAME);
    if (name === '' || out.some((s) => s.name === name)) continue;
    const filters: Record<string, FilterInput> = {};
    if (isRecord(item.filters)) {
      for (const [field, input] of Object.entries(item.filters)) {
        const clean = sanitizeFilter(input, ops.get(field));
        if (clean) filters[field] = clean;
      }
    }
    out.push({ name, filters, sort: sanitizeSort(item.sort, view) });
    if (out.length === MAX_FILTER_SETS) break;
  }
  return out;
}

/** What the server holds for a grid, made safe to use (anything else gives no preferences). */
export function sanitizeGridPrefs(stored: unknown, view: ViewMeta): GridPrefs {
  if (!isRecord(stored)) return EMPTY_PREFS;
  const columns = layoutColumns(view);
  const layout = isRecord(stored.layout) && Array.isArray(stored.layout.order) ? sanitizeLayout(stored.layout, columns) : null;
  return { layout, filterSets: sanitizeFilterSets(stored.filterSets, view) };
}

/** The body written to the server. */
export function storedPrefs(prefs: GridPrefs): Record<string, unknown> {
  return { ...(prefs.layout ? { layout: prefs.layout } : {}), filterSets: prefs.filterSets };
}

/** Filters worth keeping: an operator without a value that needs one adds nothing. */
function keptFilters(filters: Record<string, FilterInput>): Record<string, FilterInput> {
  const out: Record<string, FilterInput> = {};
  for (const [field, input] of Object.entries(filters)) {
    const hasValue = input.op === 'isEmpty' || input.op === 'isNotEmpty' || input.value.trim() !== '' || (input.to ?? '').trim() !== '' || (input.values?.length ?? 0) > 0;
    if (hasValue) out[field] = input;
  }
  return out;
}

export type SaveSetResult = { sets: FilterSet[]; replaced: boolean } | { error: 'emptyName' | 'tooMany' };

/**
 * The sets after saving the current filters and sort under `name`: a set of the same name is
 * replaced in its place, a new one goes last (at most MAX_FILTER_SETS).
 */
export function saveFilterSet(sets: readonly FilterSet[], name: string, filters: Record<string, FilterInput>, sort: UserSort | null): SaveSetResult {
  const clean = name.trim().slice(0, MAX_SET_NAME);
  if (clean === '') return { error: 'emptyName' };
  const set: FilterSet = { name: clean, filters: keptFilters(filters), sort };
  const at = sets.findIndex((s) => s.name === clean);
  if (at >= 0) return { sets: sets.map((s, i) => (i === at ? set : s)), replaced: true };
  if (sets.length >= MAX_FILTER_SETS) return { error: 'tooMany' };
  return { sets: [...sets, set], replaced: false };
}

export function deleteFilterSet(sets: readonly FilterSet[], name: string): FilterSet[] {
  return sets.filter((s) => s.name !== name);
}

/** The set whose filters and sort the grid shows now, if any. */
export function activeFilterSet(sets: readonly FilterSet[], filters: Record<string, FilterInput>, sort: UserSort | null): FilterSet | undefined {
  const key = (f: Record<string, FilterInput>, s: UserSort | null) =>
    JSON.stringify([
      Object.entries(keptFilters(f))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([field, input]) => [field, input.op, input.value, input.to ?? '', input.values ?? []]),
      s ? [s.field, s.order] : null,
    ]);
  const now = key(filters, sort);
  return sets.find((s) => key(s.filters, s.sort) === now);
}
