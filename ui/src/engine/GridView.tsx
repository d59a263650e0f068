/**
 * One server-paged grid rendered from a view's metadata: sortable and filterable headers,
 * columns the user resizes, moves (dragging a header), hides and pins (the column chooser),
 * saved filter sets, paging by row offset, inline editing of the editable columns, export,
 * and the tab's add / edit / delete / action buttons. The data rules live in useGrid and the
 * field registry, the user's layout and filter sets in grid/useGridPrefs (kept on the server);
 * this component only wires them to react-data-grid and PrimeReact.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { DataGrid, SelectColumn, type CellMouseArgs, type CellMouseEvent, type Column, type RowsChangeData, type SortColumn } from 'react-data-grid';
import 'react-data-grid/lib/styles.css';
import { Button } from 'primereact/button';
import { SplitButton } from 'primereact/splitbutton';
import { Paginator, type PaginatorPageChangeEvent } from 'primereact/paginator';
import { OverlayPanel } from 'primereact/overlaypanel';
import { ConfirmDialog } from 'primereact/confirmdialog';
import { ProgressBar } from 'primereact/progressbar';
import { api, ApiError, GENERIC_ERROR, storedMessage } from '../api/client';
import { useCurrentUser } from '../auth/useSession';
import { toastIfPending, useToast } from '../shell/toast';
import { downloadExport, engineApi } from './api';
import { fieldType, formatValue, parseInput, sameValue, separators, type FormatContext } from './fields';
import { useGrid } from './useGrid';
import { useViewMeta } from './useMeta';
import { CellEditor, EDIT_TEXT, type EditedRow } from './grid/CellEditor';
import { ColumnFilter } from './grid/ColumnFilter';
import { ColumnHeader } from './grid/ColumnHeader';
import { useReportGrid, type ReportGridProps } from './grid/reportGrid';
import { ActionDialog, actionBody, actionPath, answerValues, linkFor, selectionProblem } from './grid/rowActions';
import { statusFilterColumn } from './grid/rowStatus';
import { ColumnChooser } from './grid/ColumnChooser';
import { FilterSets } from './grid/FilterSets';
import { MIN_COLUMN_WIDTH, reorderColumn, setWidth, shownKeys } from './grid/columnLayout';
import { activeFilterSet, deleteFilterSet, MAX_FILTER_SETS, saveFilterSet } from './grid/gridPrefs';
import { useGridPrefs } from './grid/useGridPrefs';
import { isDetailRow, useDetailRows } from './grid/detailRows';
import type { ActionMeta, ColumnMeta, ExportFormat, FilterCondition, Row, ViewMeta } from './types';
import './engine.css';

import { FormDialog } from './FormDialog';

/** Row height of every engine grid (spec 01 §9, spec 02 §9): a compact back-office look. */
export const ROW_HEIGHT = 20;
const HEADER_HEIGHT = 30;
const ICON_COLUMN_WIDTH = 28;

export interface GridViewProps extends ReportGridProps {
  viewName: string;
  /** Form opened by the add button (a dialog). */
  addForm?: string;
  /** Translation key of the add button. */
  addText?: string;
  /** Form whose resource deletes rows: a trash icon per row. */
  deleteForm?: string;
  /** API path deleting a row ({id}: its key) where no form describes the resource: a trash icon too. */
  deleteRoute?: string;
  /** Hash routes instead of dialogs; {id} in editRoute is the row's key. */
  addRoute?: string;
  editRoute?: string;
  actions?: ActionMeta[];
  /** Grid height in px; without it the grid fills the screen below the toolbar. */
  height?: number;
  /**
   * Field values from a link (e.g. ?Id=42): the grid shows only rows equal to them, with a chip
   * that clears them (onClearLinked). Fields that are not columns of the view are ignored.
   */
  linked?: Record<string, string>;
  onClearLinked?(): void;
  /** The grid's accessible name (the translated tab or screen title); the view's name is internal. */
  title?: string;
  /** The screen's own buttons, first in the toolbar. */
  toolbar?: ReactNode;
  /** A value the screen changes to have the page read again (e.g. after its own editor saved). */
  reloadKey?: unknown;
}

/** Default widths by type, widened for long header labels. */
const TYPE_WIDTH: Record<string, number> = { text: 140, int: 80, decimal: 120, date: 100, datetime: 150, enum: 100, bool: 80 };

function routeFor(template: string, key: unknown): string {
  const path = template.replace(/\{[^}]+\}/g, encodeURIComponent(String(key)));
  return path.startsWith('/') ? path : `/${path}`;
}

export function GridView(props: GridViewProps) {
  const { view, error: metaError } = useViewMeta(props.viewName);
  if (metaError) {
    return (
      <div className="grid-message grid-message--error" data-testid="grid-error">
        {metaError}
      </div>
    );
  }
  if (!view) return <ProgressBar mode="indeterminate" className="grid-progress" />;
  return <LoadedGrid {...props} view={view} />;
}

/**
 * A link's field values as conditions on the view's columns: `value` is equals (numbers as
 * numbers), `from..to` on a date, datetime or number column is between (both ends included),
 * and an empty value is isEmpty (e.g. `Actor=`: bookings without an actor).
 */
export function linkedConditions(view: ViewMeta, linked: Record<string, string> | undefined): FilterCondition[] {
  const out: FilterCondition[] = [];
  for (const [field, value] of Object.entries(linked ?? {})) {
    const column = view.columns.find((c) => c.field === field);
    if (!column) continue;
    if (value === '') {
      out.push({ field, op: 'isEmpty' });
      continue;
    }
    // from..to (both ends included), from.. (from on) or ..to (up to to)
    const range = /^(.*)\.\.(.*)$/.exec(value);
    if (range && (range[1] || range[2]) && ['date', 'datetime', 'int', 'decimal'].includes(column.type)) {
      const [from, to] = [range[1]!, range[2]!].map((v) => (column.type === 'int' && v !== '' ? Number(v) : v));
      if (from === '') out.push({ field, op: 'lte', value: to });
      else if (to === '') out.push({ field, op: 'gte', value: from });
      else out.push({ field, op: 'between', value: [from, to] });
      continue;
    }
    const numeric = column.type === 'int' && /^-?\d+$/.test(value);
    out.push({ field, op: 'equals', value: numeric ? Number(value) : value });
  }
  return out;
}

/** A linked condition on the chip: "Booked Date = 2026-01-01 – 2026-01-31", "Actor Is empty". */
function linkedLabel(c: FilterCondition, columnLabel: string, isEmptyText: string): string {
  if (c.op === 'isEmpty') return `${columnLabel} ${isEmptyText}`;
  if (c.op === 'gte' || c.op === 'lte') return `${columnLabel} ${c.op === 'gte' ? '≥' : '≤'} ${String(c.value)}`;
  return `${columnLabel} = ${Array.isArray(c.value) ? c.value.join(' – ') : String(c.value)}`;
}

function LoadedGrid({ view, addForm, addText, deleteForm, deleteRoute, addRoute, editRoute, actions, height, linked, onClearLinked, title, toolbar, reloadKey, ...report }: GridViewProps & { view: ViewMeta }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const user = useCurrentUser();
  const locale = i18n.language || 'en';
  const fixed = useMemo(() => linkedConditions(view, linked), [view, linked]);
  const grid = useGrid(view, locale, fixed, report.params);
  const prefs = useGridPrefs(view);
  const { layout } = prefs;
  // The screen asked for a reload: the page, and the details of its open rows, are read again.
  const [reloads, setReloads] = useState(0);
  const firstReloadKey = useRef(reloadKey);
  const { refresh } = grid;
  useEffect(() => {
    if (Object.is(firstReloadKey.current, reloadKey)) return;
    firstReloadKey.current = reloadKey;
    refresh();
    setReloads((n) => n + 1);
  }, [reloadKey, refresh]);
  const details = useDetailRows(view, grid.rows, ROW_HEIGHT, reloads);
  // Reset layout also drops the widths react-data-grid keeps for columns resized by hand.
  const [resets, setResets] = useState(0);
  const [filterField, setFilterField] = useState<string | null>(null);
  const filterPanel = useRef<OverlayPanel>(null);
  const openFilter = useCallback((field: string, event: MouseEvent<HTMLElement>) => {
    setFilterField(field);
    filterPanel.current?.show(event, event.currentTarget);
  }, []);
  const reportGrid = useReportGrid(view, grid, report, openFilter);
  // A report's status (rowStatus), filtered as a choice of its statuses from its column's header.
  const statusColumn = useMemo(() => statusFilterColumn(view), [view]);
  const [formOpen, setFormOpen] = useState(false);
  const [pendingDelete, setPendingDelete] = useState<Row | null>(null);
  const [pendingAction, setPendingAction] = useState<ActionMeta | null>(null);
  const [busyAction, setBusyAction] = useState<string | null>(null);
  // Rows chosen with the check boxes (actions with selection: true), by key: this page's only.
  const selectable = !!actions?.some((a) => a.selection);
  const [chosenKeys, setChosenKeys] = useState<ReadonlySet<string>>(() => new Set());
  const [askAction, setAskAction] = useState<ActionMeta | null>(null);
  // A page read again (a refresh, a second answer to the same request) keeps the choice of the
  // rows still on it; another page, sort or filter has other rows, and so drops it.
  useEffect(() => {
    setChosenKeys((chosen) => {
      if (chosen.size === 0) return chosen;
      const onPage = new Set(grid.rows.map((r) => String(r[view.key])));
      const kept = [...chosen].filter((k) => onPage.has(k));
      return kept.length === chosen.size ? chosen : new Set(kept);
    });
  }, [grid.rows, view.key]);
  const chosenRows = useMemo(() => grid.rows.filter((r) => chosenKeys.has(String(r[view.key]))), [grid.rows, chosenKeys, view.key]);

  const visible = useMemo(() => view.columns.filter((c) => !c.hidden), [view]);
  // The user's layout: the columns they show, in their order, the pinned ones first. The
  // rowStatus field's own column is not in it: it would repeat the status column beside it
  // (under the same key), so the grid shows it once, as the status column; the export keeps it.
  const shownColumns = useMemo(() => {
    const byField = new Map(visible.map((c) => [c.field, c]));
    return shownKeys(layout)
      .map((k) => byField.get(k))
      .filter((c): c is ColumnMeta => c !== undefined);
  }, [visible, layout]);
  const pinned = useMemo(() => new Set(layout.pinned), [layout.pinned]);
  // The export has the grid's columns in the grid's order, and the status field where the view has it.
  const exportColumns = useMemo(() => {
    const status = visible.find((c) => c.field === view.rowStatus?.field);
    if (!status) return shownColumns;
    const out = [...shownColumns];
    out.splice(Math.min(visible.indexOf(status), out.length), 0, status);
    return out;
  }, [visible, shownColumns, view.rowStatus]);
  const label = useCallback((c: ColumnMeta) => t(c.label, { defaultValue: c.field }), [t]);
  const enumLabel = useCallback(
    (c: ColumnMeta, value: string) => {
      const badge = c === statusColumn ? view.rowStatus?.values[value] : undefined;
      if (badge) return t(badge.label, { defaultValue: badge.label });
      return t(`views.${view.name}.values.${c.field}.${value}`, { defaultValue: value });
    },
    [t, view.name, view.rowStatus, statusColumn],
  );
  const ctx = useMemo<FormatContext>(
    () => ({ locale, dateFormat: user?.dateFormat, enumLabel, yesNo: { yes: t('common.yes'), no: t('common.no') } }),
    [locale, user?.dateFormat, enumLabel, t],
  );

  // ---- columns ------------------------------------------------------------------------------
  const columns = useMemo((): Column<Row>[] => {
    const iconColumns: Column<Row>[] = [];
    const deletes = !!(deleteForm || deleteRoute);
    if (editRoute || deletes) {
      const count = (editRoute ? 1 : 0) + (deletes ? 1 : 0);
      iconColumns.push({
        key: '__rowActions',
        name: '',
        width: ICON_COLUMN_WIDTH * count + 4,
        minWidth: ICON_COLUMN_WIDTH * count + 4,
        frozen: true,
        resizable: false,
        sortable: false,
        cellClass: 'grid-cell--icons',
        renderCell: ({ row }) => (
          <span className="grid-row-actions">
            {editRoute && (
              <button
                type="button"
                className="grid-icon-button"
                title={t('grid.edit')}
                aria-label={t('grid.edit')}
                data-testid={`row-edit-${String(row[view.key])}`}
                onClick={() => navigate(routeFor(editRoute, row[view.key]))}
              >
                <i className="pi pi-pencil" aria-hidden="true" />
              </button>
            )}
            {deletes && (
              <button
                type="button"
                className="grid-icon-button grid-icon-button--danger"
                title={t('grid.delete')}
                aria-label={t('grid.delete')}
                data-testid={`row-delete-${String(row[view.key])}`}
                onClick={() => setPendingDelete(row)}
              >
                <i className="pi pi-trash" aria-hidden="true" />
              </button>
            )}
          </span>
        ),
      });
    }

    const dataColumns = shownColumns.map((meta, index): Column<Row> => {
      const name = label(meta);
      const type = fieldType(meta.type);
      const active = !!grid.filters[meta.field];
      const width = layout.widths[meta.field] ?? meta.width ?? Math.max(TYPE_WIDTH[meta.type] ?? 120, Math.min(260, name.length * 7 + 44));
      return {
        key: meta.field,
        name,
        // The last column takes what is left, so a narrow view still fills the grid.
        width: index === shownColumns.length - 1 ? `minmax(${width}px, 1fr)` : width,
        minWidth: MIN_COLUMN_WIDTH,
        resizable: true,
        // Dragged onto another header it takes that column's place (and pin).
        draggable: true,
        // Pinned: frozen at the start, after the row icons and a report's Status column.
        frozen: pinned.has(meta.field),
        sortable: meta.sortable,
        cellClass: [type.align === 'end' ? 'grid-cell--number' : '', meta.editable ? 'grid-cell--editable' : ''].join(' ').trim() || undefined,
        headerCellClass: type.align === 'end' ? 'grid-header--number' : undefined,
        renderHeaderCell: ({ sortDirection }) => (
          <ColumnHeader field={meta.field} name={name} sortDirection={sortDirection} filterable={meta.ops.length > 0} filtered={active} openFilter={openFilter} />
        ),
        renderCell: ({ row }) => {
          const value = row[meta.field];
          if (meta.status) {
            // Any value not listed, an empty one too, gets the otherwise badge (spec 02: ERROR in red).
            const badge = meta.status.values[String(value ?? '')] ?? meta.status.otherwise;
            if (badge) {
              return <span className={`grid-badge grid-badge--${badge.severity}`}>{t(badge.label, { defaultValue: badge.label })}</span>;
            }
          }
          // A stored server text with its code beside it (<Field>Code, <Field>Params) reads in the reader's language.
          const text = storedMessage(row[`${meta.field}Code`], row[`${meta.field}Params`], formatValue(value, meta, ctx));
          return <span title={text.length > 18 ? text : undefined}>{text}</span>;
        },
        renderEditCell: meta.editable
          ? (p) => <CellEditor {...p} meta={meta} label={name} locale={locale} enumLabel={enumLabel} yes={t('common.yes')} no={t('common.no')} />
          : undefined,
        editorOptions: { commitOnOutsideClick: true },
      };
    });
    return [...(selectable ? [SelectColumn as Column<Row>] : []), ...iconColumns, ...details.columns, ...reportGrid.columns, ...dataColumns];
  }, [details.columns, shownColumns, layout.widths, pinned, label, grid.filters, t, openFilter, ctx, locale, enumLabel, editRoute, deleteForm, deleteRoute, navigate, view.key, reportGrid.columns, selectable]);
  // A new arrangement is a new grid: react-data-grid keeps the widths it measured per column
  // (the last column's flexible one too), which would follow a column to its new place.
  const arrangement = `${layout.order.join(',')}|${layout.hidden.join(',')}|${layout.pinned.join(',')}|${resets}`;
  const { changeLayout } = prefs;
  const onColumnsReorder = useCallback((moved: string, target: string) => changeLayout((l) => reorderColumn(l, moved, target)), [changeLayout]);
  const onColumnResize = useCallback((column: { key: string }, width: number) => changeLayout((l) => setWidth(l, column.key, width)), [changeLayout]);
  const columnLabel = useCallback((key: string) => {
    const meta = visible.find((c) => c.field === key);
    return meta ? label(meta) : key;
  }, [visible, label]);

  // ---- saved filter sets --------------------------------------------------------------------
  const activeSet = useMemo(() => activeFilterSet(prefs.filterSets, grid.filters, grid.sort), [prefs.filterSets, grid.filters, grid.sort]);
  const saveSet = (name: string): boolean => {
    const result = saveFilterSet(prefs.filterSets, name, grid.filters, grid.sort);
    if ('error' in result) {
      toast.error(t(`grid.filterSets.${result.error}`, { max: MAX_FILTER_SETS }));
      return false;
    }
    prefs.changeFilterSets(() => result.sets);
    toast.success(t('grid.filterSets.saved', { name: name.trim() }));
    return true;
  };

  // ---- inline edit --------------------------------------------------------------------------
  const onRowsChange = useCallback(
    (next: Row[], { indexes, column }: RowsChangeData<Row>) => {
      const index = indexes[0];
      if (index === undefined) return;
      // The rows shown hold the expanders' detail rows too: the edited row is found by its key.
      const shown = details.rows[index];
      const before = shown && !isDetailRow(shown) ? grid.rows.find((r) => r[view.key] === shown[view.key]) : undefined;
      const edited = next[index] as EditedRow | undefined;
      const meta = view.columns.find((c) => c.field === column.key);
      const typed = edited?.[EDIT_TEXT];
      if (!before || !meta || !typed) return;
      const parsed = parseInput(typed.text, meta, locale);
      if (!parsed.ok) {
        const sep = separators(locale);
        toast.error(t(`grid.invalid.${parsed.error}`, { column: label(meta), max: meta.maxLength ?? '', scale: meta.scale ?? '', group: sep.group.trim() || ' ', decimal: sep.decimal }));
        return;
      }
      if (sameValue(meta, before[meta.field], parsed.value)) return; // nothing changed: no call
      // The answer is applied by key, and only while this page is still the one shown.
      const key = before[view.key];
      const page = grid.shownPage();
      grid.replaceRow(key, { ...before, [meta.field]: parsed.value }, page);
      const body = {
        ViewName: view.name,
        Key: key,
        Values: { [meta.field]: parsed.value },
        ...(view.version ? { Version: before[view.version] } : {}),
      };
      engineApi
        .saveRow(body)
        .then((saved) => grid.replaceRow(key, saved && typeof saved === 'object' ? { ...before, ...saved } : before, page))
        .catch((err: unknown) => {
          grid.replaceRow(key, before, page);
          // Kept for a second user's approval: the row shows what is stored until then.
          if (toastIfPending(toast, err)) return;
          toast.error(err instanceof Error ? err.message : t('errors.generic'));
          // Someone else changed the row: show what is stored now.
          if (err instanceof ApiError && err.status === 409) grid.refresh();
        });
    },
    [grid, view, locale, toast, t, label, details.rows],
  );

  // ---- toolbar actions ----------------------------------------------------------------------
  const runAction = async (action: ActionMeta, inputs: Record<string, unknown> = {}) => {
    setBusyAction(action.id);
    try {
      const answer = await engineApi.action(action.method, actionPath(action, chosenRows, inputs), actionBody(action, chosenRows, view.key, inputs));
      // A background job that outlasted the request: it goes on, say so.
      if (answer && typeof answer === 'object' && (answer as { running?: unknown }).running === true) {
        toast.info(t('grid.actionRunning'));
      } else {
        toast.success(t(action.success, answerValues(answer, chosenRows.length)));
      }
      setAskAction(null);
      setChosenKeys(new Set()); // done with them
      grid.refresh();
    } catch (err) {
      if (toastIfPending(toast, err)) {
        // Sent for approval: nothing more for the requester to do here.
        setAskAction(null);
        setChosenKeys(new Set());
        grid.refresh();
        return;
      }
      const message = err instanceof Error && err.message && err.message !== GENERIC_ERROR ? err.message : t(action.failure);
      toast.error(message, t(action.failure));
    } finally {
      setBusyAction(null);
    }
  };

  const confirmDelete = async (row: Row) => {
    try {
      if (deleteRoute) await api.delete(routeFor(deleteRoute, row[view.key]));
      else await engineApi.remove((await engineApi.form(deleteForm ?? '')).resource, row[view.key]);
      toast.success(t('grid.deleted'));
      grid.refresh();
    } catch (err) {
      if (!toastIfPending(toast, err)) toast.error(err instanceof Error ? err.message : t('errors.generic'));
    }
  };

  const exportAs = async (format: ExportFormat) => {
    try {
      const { cutAt } = await downloadExport(
        {
          ...grid.baseRequest(),
          Format: format,
          Columns: exportColumns.map((c) => ({ field: c.field, header: label(c) })),
          // Datetimes in the file as the grid shows them: in this browser's zone.
          TimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        },
        `${view.export ?? view.name}.${format}`,
      );
      if (cutAt !== null) toast.info(t('money.exportCut', { rows: new Intl.NumberFormat(locale).format(cutAt) }));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : t('errors.generic'), t('grid.exportFailed'));
    }
  };

  // A double-click on a cell not edited in place opens the row's edit route, as its pencil does.
  const openOnDoubleClick = editRoute
    ? (args: CellMouseArgs<Row>, event: CellMouseEvent) => {
        const meta = view.columns.find((c) => c.field === args.column.key);
        if (meta?.editable || isDetailRow(args.row)) return;
        event.preventGridDefault();
        window.getSelection()?.removeAllRanges(); // the double-click selected a word
        navigate(routeFor(editRoute, args.row[view.key]));
      }
    : undefined;

  // ---- sort ---------------------------------------------------------------------------------
  const sortColumns: SortColumn[] = grid.sort ? [{ columnKey: grid.sort.field, direction: grid.sort.order === 'asc' ? 'ASC' : 'DESC' }] : [];
  const onSortColumnsChange = (cols: SortColumn[]) => {
    const first = cols[0];
    // asc -> desc -> (none): none is the view's default sort again.
    grid.setSort(first ? { field: first.columnKey, order: first.direction === 'ASC' ? 'asc' : 'desc' } : null);
  };

  const onPage = (event: PaginatorPageChangeEvent) => {
    if (event.rows !== grid.pageSize) grid.setPageSize(event.rows);
    else grid.setOffset(event.first);
  };

  // Close a filter popover whose column went away (a language switch rebuilds the headers).
  useEffect(() => {
    if (filterField && !visible.some((c) => c.field === filterField) && filterField !== statusColumn?.field) setFilterField(null);
  }, [filterField, visible, statusColumn]);

  const number = (n: number) => new Intl.NumberFormat(locale).format(n);
  const totalText = grid.totalCapped
    ? t('grid.rowsCapped', { total: number(grid.totalCount) })
    : grid.totalCount === 1
      ? t('grid.rowOne')
      : t('grid.rows', { total: number(grid.totalCount) });
  const activeFilters = Object.keys(grid.filters).length;
  const filterColumn = filterField !== null && filterField === statusColumn?.field ? statusColumn : visible.find((c) => c.field === filterField);
  // While capped, the pager always offers one more page: the server has at least that many.
  const pagerTotal = grid.totalCapped ? Math.max(grid.totalCount, grid.offset + 2 * grid.pageSize) : grid.totalCount;
  const gridHeight = height ? `${height}px` : undefined;

  return (
    <div className="grid-view" data-testid={`grid-${view.name}`}>
      <div className="grid-toolbar">
        <div className="grid-toolbar__start">
          {toolbar}
          {reportGrid.toolbar}
          {/* The screen's own buttons, then Add (spec 02: "sync exchange rates, and add"). */}
          {actions?.map((action) => (
            <Button
              key={action.id}
              type="button"
              size="small"
              outlined
              icon={`pi ${action.icon}`}
              label={t(action.label)}
              loading={busyAction === action.id}
              disabled={busyAction !== null || selectionProblem(action, chosenRows.length) !== null}
              tooltip={selectionProblem(action, chosenRows.length) ? t(selectionProblem(action, chosenRows.length) ?? '') : undefined}
              tooltipOptions={{ showOnDisabled: true, position: 'bottom' }}
              data-testid={`grid-action-${action.id}`}
              onClick={() => {
                if (action.link) navigate(linkFor(action.link, chosenRows[0] ?? {}));
                else if (action.inputs?.length || (action.selection && action.confirm)) setAskAction(action);
                else if (action.confirm) setPendingAction(action);
                else void runAction(action);
              }}
            />
          ))}
          {selectable && chosenRows.length > 0 && (
            <span className="grid-chosen" data-testid="grid-chosen">
              {t('grid.chosen', { count: chosenRows.length })}
            </span>
          )}
          {(addForm || addRoute) && (
            <Button
              type="button"
              size="small"
              icon="pi pi-plus"
              label={t(addText ?? 'grid.add')}
              data-testid="grid-add"
              onClick={() => (addRoute ? navigate(routeFor(addRoute, '')) : setFormOpen(true))}
            />
          )}
        </div>
        <div className="grid-toolbar__end">
          <span className="grid-total" data-testid="grid-total" aria-live="polite">
            {/* Nothing counted yet is not "0 rows". */}
            {grid.loading && grid.rows.length === 0 ? t('grid.loading') : totalText}
          </span>
          {fixed.length > 0 && (
            <Button
              type="button"
              size="small"
              outlined
              icon="pi pi-times"
              iconPos="right"
              label={fixed.map((c) => linkedLabel(c, label(view.columns.find((col) => col.field === c.field)!), t('grid.operators.isEmpty'))).join(', ')}
              title={t('grid.showAll')}
              data-testid="grid-linked"
              onClick={onClearLinked}
            />
          )}
          {activeFilters > 0 && (
            <Button
              type="button"
              size="small"
              text
              icon="pi pi-filter-slash"
              label={t('grid.clearFilters', { count: activeFilters })}
              data-testid="grid-clear-filters"
              onClick={grid.clearFilters}
            />
          )}
          {prefs.ready && (
            <>
              <FilterSets
                sets={prefs.filterSets}
                active={activeSet}
                onApply={(set) => grid.applyQuery(set.filters, set.sort)}
                onSave={saveSet}
                onDelete={(set) => prefs.changeFilterSets((sets) => deleteFilterSet(sets, set.name))}
              />
              <ColumnChooser
                layout={layout}
                label={columnLabel}
                onChange={changeLayout}
                customLayout={prefs.customLayout}
                onReset={() => {
                  prefs.resetLayout();
                  setResets((n) => n + 1);
                }}
              />
            </>
          )}
          <Button
            type="button"
            size="small"
            text
            icon="pi pi-refresh"
            aria-label={t('grid.refresh')}
            title={t('grid.refresh')}
            data-testid="grid-refresh"
            onClick={() => {
              grid.setSort(null); // spec 01 section 9: refresh goes back to the default sort
              grid.refresh();
            }}
          />
          {view.export && (
            <SplitButton
              size="small"
              outlined
              icon="pi pi-file-excel"
              label={t('grid.export')}
              data-testid="grid-export"
              onClick={() => void exportAs('xlsx')}
              model={[
                { label: t('grid.exportXlsx'), icon: 'pi pi-file-excel', command: () => void exportAs('xlsx') },
                { label: t('grid.exportCsv'), icon: 'pi pi-file', command: () => void exportAs('csv') },
              ]}
              menuButtonProps={{ 'aria-label': t('grid.exportMore') } as object}
            />
          )}
        </div>
      </div>

      <div className="grid-progress-slot">{(grid.loading || !prefs.ready) && <ProgressBar mode="indeterminate" className="grid-progress" />}</div>

      {/* Shown once the user's layout is read: one layout, not the default and then theirs. */}
      {prefs.ready && (
        <DataGrid<Row>
          key={arrangement}
          className={`rdg-light grid-table${height ? '' : ' grid-table--fill'}`}
          style={gridHeight ? { height: gridHeight } : undefined}
          columns={columns}
          rows={details.rows}
          rowKeyGetter={details.rowKey}
          rowHeight={details.enabled ? details.rowHeight : ROW_HEIGHT}
          headerRowHeight={HEADER_HEIGHT}
          sortColumns={sortColumns}
          onSortColumnsChange={onSortColumnsChange}
          onRowsChange={onRowsChange}
          onColumnsReorder={onColumnsReorder}
          onColumnResize={onColumnResize}
          {...reportGrid.gridProps}
          onCellDoubleClick={reportGrid.gridProps.onCellDoubleClick ?? openOnDoubleClick}
          isRowSelectionDisabled={details.enabled ? isDetailRow : undefined}
          selectedRows={selectable ? chosenKeys : undefined}
          onSelectedRowsChange={selectable ? (keys) => setChosenKeys(new Set([...keys].map(String))) : undefined}
          aria-label={title ?? t('money.gridLabel')}
          // Every row of the view (the header row included), not only this page's.
          aria-rowcount={grid.totalCount + 1}
          renderers={{
            renderRow: details.enabled ? details.renderRow : undefined,
            noRowsFallback: (
              <div className="grid-empty" data-testid="grid-empty">
                <span className="grid-empty__text">{grid.loading ? t('grid.loading') : (grid.error ?? t('grid.empty'))}</span>
              </div>
            ),
          }}
        />
      )}

      <Paginator
        className="grid-pager"
        first={grid.offset}
        rows={grid.pageSize}
        totalRecords={pagerTotal}
        rowsPerPageOptions={grid.pageSizes}
        onPageChange={onPage}
        template={{
          layout: 'CurrentPageReport FirstPageLink PrevPageLink PageLinks NextPageLink LastPageLink RowsPerPageDropdown',
          CurrentPageReport: () => (
            <span className="grid-pager__range">
              {grid.rows.length > 0
                ? t('grid.range', {
                    from: number(grid.offset + 1),
                    to: number(grid.offset + grid.rows.length),
                    total: grid.totalCapped ? `${number(grid.totalCount)}+` : number(grid.totalCount),
                  })
                : ''}
            </span>
          ),
          RowsPerPageDropdown: (options) => (
            <label className="grid-pager__size">
              <span>{t('grid.pageSize')}</span>
              {options.element}
            </label>
          ),
        }}
        data-testid="grid-pager"
      />

      <OverlayPanel ref={filterPanel} onHide={() => setFilterField(null)} className="grid-filter-panel">
        {filterColumn && (
          <ColumnFilter
            column={filterColumn}
            label={label(filterColumn)}
            value={grid.filters[filterColumn.field]}
            onChange={(input) => grid.setFilter(filterColumn.field, input)}
            enumLabel={enumLabel}
          />
        )}
      </OverlayPanel>

      <ConfirmDialog
        visible={pendingDelete !== null}
        onHide={() => setPendingDelete(null)}
        header={t('grid.deleteTitle')}
        message={t('grid.deleteConfirm')}
        icon="pi pi-exclamation-triangle"
        acceptClassName="p-button-danger"
        acceptLabel={t('grid.delete')}
        rejectLabel={t('common.cancel')}
        accept={() => {
          if (pendingDelete) void confirmDelete(pendingDelete);
        }}
      />

      <ConfirmDialog
        visible={pendingAction !== null}
        onHide={() => setPendingAction(null)}
        header={pendingAction ? t(pendingAction.label) : ''}
        message={pendingAction?.confirm ? t(pendingAction.confirm) : ''}
        icon="pi pi-question-circle"
        acceptLabel={t('common.yes')}
        rejectLabel={t('common.no')}
        accept={() => {
          if (pendingAction) void runAction(pendingAction);
        }}
      />

      <ActionDialog
        action={askAction}
        chosen={chosenRows.length}
        busy={askAction !== null && busyAction === askAction.id}
        onCancel={() => setAskAction(null)}
        onSubmit={(values) => {
          if (askAction) void runAction(askAction, values);
        }}
      />

      {addForm && (
        <FormDialog
          formName={addForm}
          visible={formOpen}
          onClose={() => setFormOpen(false)}
          onSaved={() => {
            setFormOpen(false);
            grid.refresh(true);
          }}
        />
      )}
    </div>
  );
}
