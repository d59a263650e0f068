/**
 * Row colours from metadata (views.yaml `rowStatus`): a view names the field whose value picks a
 * badge (label and severity); any value not listed, an empty one too, gets `otherwise`. The grid
 * gives each row the class grid-row--<severity> and shows the badge's label in a status column,
 * so the colour never carries the meaning alone. And the values of a report's declared params
 * (`params`), kept to the names the view declares.
 */
import type { ColumnMeta, Row, RowStatusMeta, StatusBadge, ViewMeta } from '../types';
import type { FilterInput } from '../fields';

/** The badge of one row, or null when the view has no rule (or no fallback for the value). */
export function rowBadge(rule: RowStatusMeta | undefined, row: Row): StatusBadge | null {
  if (!rule) return null;
  const value = row[rule.field];
  return rule.values[value === null || value === undefined ? '' : String(value)] ?? rule.otherwise ?? null;
}

/** The row's CSS class: grid-row--success, grid-row--warning, grid-row--danger, ... */
export function rowStatusClass(rule: RowStatusMeta | undefined, row: Row): string | undefined {
  const badge = rowBadge(rule, row);
  return badge ? `grid-row--${badge.severity}` : undefined;
}

/** The icon shown beside a status label, one per severity (readable without colour). */
export const SEVERITY_ICON: Record<string, string> = {
  success: 'pi-check-circle',
  warning: 'pi-exclamation-circle',
  danger: 'pi-times-circle',
  info: 'pi-info-circle',
  secondary: 'pi-circle',
};

/**
 * The screen's values for the view's declared params only (a screen may hold more filters than
 * one report takes; the server refuses undeclared names). Undefined when the view has none.
 */
export function declaredParams(view: ViewMeta | null, values: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!view?.params?.length || !values) return undefined;
  const out: Record<string, unknown> = {};
  for (const p of view.params) {
    if (values[p.name] !== undefined) out[p.name] = values[p.name];
  }
  return out;
}

/**
 * The filter keeping a report's open rows, those whose badge is neither a success nor closed:
 * the values listed as open when there is no fallback or it is done, else every value but the
 * one done value. Null when the rule cannot say it in one filter (several done values beside
 * an open fallback) or has nothing open.
 */
export function openRowsFilter(rule: RowStatusMeta | undefined): FilterInput | null {
  if (!rule) return null;
  const done = (b: StatusBadge) => b.severity === 'success' || b.closed === true;
  const entries = Object.entries(rule.values);
  const success = entries.filter(([, b]) => done(b)).map(([v]) => v);
  const open = entries.filter(([, b]) => !done(b)).map(([v]) => v);
  if (!rule.otherwise || done(rule.otherwise)) return open.length > 0 ? { op: 'in', value: open.join(','), values: open } : null;
  if (success.length === 1) return { op: 'notEquals', value: success[0] ?? '' };
  return null;
}

/**
 * The status as a column the filter popover offers: a choice among the statuses the rule lists
 * (shown by their badge labels; `in` for several, `equals`, and the `notEquals` "Open only" may
 * set). Null without a rule, or when the view has no column of the rule's field to filter on.
 */
export function statusFilterColumn(view: ViewMeta): ColumnMeta | null {
  const rule = view.rowStatus;
  const column = rule && view.columns.find((c) => c.field === rule.field);
  if (!rule || !column) return null;
  return { ...column, type: 'enum', values: Object.keys(rule.values), ops: ['in', 'equals', 'notEquals'], hidden: false, label: 'grid.status' };
}
