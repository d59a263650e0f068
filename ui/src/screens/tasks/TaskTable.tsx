/**
 * The paged task table of the tasks screen (spec 03 sections 2.3, 4, 5, 9): sort on header click,
 * drag to reorder, resize, a filter per column applied after a 300 ms pause, show or hide columns,
 * the +/- expander with the task's tickets and transactions, in-place edit of the task name and
 * remarks, the edit button and double-click opening Edit Task, the pager and the export menu.
 * Column order, widths, visibility, filters and page size are kept per user on the server.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent, type MouseEvent as ReactMouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { ApiError } from '../../api/client';
import { useCurrentUser } from '../../auth/useSession';
import { useToast } from '../../shell/toast';
import { formatValue } from '../../engine/fields';
import { formatDecimal, normalizeNumber } from '../../lib/decimal';
import { fromIsoDate, toIsoDate } from '../../lib/dates';
import { DateOfBirthInput } from '../../components/DateOfBirthInput';
import type { ColumnMeta } from '../../engine/types';
import { clampWidth } from '../../engine/grid/columnLayout';
import { exportTasks, tasksApi, type Relations, type Task } from './api';
import {
  clampPage,
  columnWidth,
  DEFAULT_COLUMN_WIDTH,
  defaultPrefs,
  FILTER_DEBOUNCE_MS,
  moveColumn,
  nextSort,
  normalizePrefs,
  PAGE_SIZES,
  pagedQuery,
  PREFS_KEY,
  TASK_COLUMNS,
  totalPages,
  type GridPrefs,
  type SortState,
  type TaskColumn,
} from './taskLogic';
import { useErrorText } from './errorText';
import { TaskEditorDialog } from './TaskEditorDialog';
import { TicketTable, TransactionTable } from './RelationTables';

const COLUMN_BY_KEY = new Map(TASK_COLUMNS.map((c) => [c.key, c]));
const DATETIME: ColumnMeta = { field: 'd', type: 'datetime', label: '', sortable: true, ops: [] };
const PREFS_SAVE_MS = 400;
const ICON_COLUMN = 40;

export function TaskTable() {
  const { t, i18n } = useTranslation();
  const locale = i18n.language || 'en';
  const toast = useToast();
  const errorText = useErrorText();
  const user = useCurrentUser();
  const [prefs, setPrefs] = useState<GridPrefs | null>(null);
  const [filterInputs, setFilterInputs] = useState<Record<string, string>>({});
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState | null>(null);
  const [rows, setRows] = useState<Task[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const [expanded, setExpanded] = useState<Record<number, Relations | 'loading' | 'failed'>>({});
  const [editing, setEditing] = useState<{ id: number; key: string; text: string } | null>(null);
  const [editTask, setEditTask] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const [menu, setMenu] = useState<'columns' | 'export' | null>(null);
  const dragged = useRef<string | null>(null);
  const request = useRef(0);

  // ---- preferences: read once, then written a moment after each change --------------------
  useEffect(() => {
    let live = true;
    tasksApi
      .prefs(PREFS_KEY)
      .then((stored) => live && setPrefs(normalizePrefs(stored)))
      .catch(() => live && setPrefs(defaultPrefs()));
    return () => {
      live = false;
    };
  }, []);
  const firstPrefs = useRef(true);
  useEffect(() => {
    if (!prefs) return;
    if (firstPrefs.current) {
      firstPrefs.current = false;
      // the saved filters, and whatever the user typed while they loaded
      setFilterInputs((typed) => ({ ...prefs.filters, ...typed }));
      return;
    }
    const timer = setTimeout(() => {
      tasksApi.savePrefs(PREFS_KEY, prefs).catch(() => toast.error(t('tasks.toast.prefsFailed')));
    }, PREFS_SAVE_MS);
    return () => clearTimeout(timer);
  }, [prefs, toast, t]);

  const update = useCallback((change: (p: GridPrefs) => GridPrefs) => setPrefs((p) => (p ? change(p) : p)), []);

  // A filter typed in the box is applied after a pause, and goes back to page 1.
  useEffect(() => {
    if (!prefs) return;
    const applied = JSON.stringify(prefs.filters);
    const typed = Object.fromEntries(Object.entries(filterInputs).filter(([, v]) => v.trim() !== ''));
    // Amounts typed the reader's way ("1 234,50") go to the server with a decimal point.
    for (const [key, value] of Object.entries(typed)) {
      if (COLUMN_BY_KEY.get(key)?.kind === 'amount') typed[key] = normalizeNumber(value, locale) ?? value;
    }
    if (JSON.stringify(typed) === applied) return;
    const timer = setTimeout(() => {
      update((p) => ({ ...p, filters: typed }));
      setPage(1);
    }, FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [filterInputs, prefs, update, locale]);

  // ---- the page ------------------------------------------------------------------------------
  const pageSize = prefs?.pageSize ?? 20;
  const filters = prefs?.filters;
  const query = useMemo(() => ({ page, pageSize, sort, filters: filters ?? {} }), [page, pageSize, sort, filters]);
  useEffect(() => {
    if (!filters) return;
    const mine = ++request.current;
    setLoading(true);
    tasksApi
      .paged(pagedQuery(query))
      .then((answer) => {
        if (mine !== request.current) return;
        setRows(answer.data ?? []);
        setTotal(answer.total ?? 0);
      })
      .catch((err: unknown) => mine === request.current && toast.error(errorText(err, 'tasks.toast.loadFailed'), t('tasks.toast.error')))
      .finally(() => mine === request.current && setLoading(false));
  }, [query, filters, tick, toast, t, errorText]);

  const pages = totalPages(total, pageSize);
  const goTo = (p: number) => setPage(clampPage(p, total, pageSize));
  const reload = () => setTick((n) => n + 1);

  // ---- expander ------------------------------------------------------------------------------
  const toggle = (id: number) => {
    if (expanded[id] !== undefined) {
      setExpanded(({ [id]: _closed, ...rest }) => rest);
      return;
    }
    setExpanded((e) => ({ ...e, [id]: 'loading' }));
    tasksApi
      .relations(id)
      .then((rel) => setExpanded((e) => (e[id] === undefined ? e : { ...e, [id]: rel })))
      .catch((err: unknown) => {
        setExpanded((e) => (e[id] === undefined ? e : { ...e, [id]: 'failed' }));
        toast.error(errorText(err, 'tasks.toast.relationsFailed'), t('tasks.toast.error'));
      });
  };

  // ---- in-place edit -------------------------------------------------------------------------
  const commit = async () => {
    if (!editing) return;
    const { id, key, text } = editing;
    setEditing(null);
    const row = rows.find((r) => r.id === id);
    if (!row) return;
    const before = (key === 'taskName' ? row.taskName : row.remarks) ?? '';
    if (text === before) return; // saved only when changed
    setRows((rs) => rs.map((r) => (r.id === id ? { ...r, [key]: text } : r)));
    try {
      const saved = await tasksApi.patchField(id, key === 'taskName' ? 'TaskName' : 'Remarks', text, row.updatedOn);
      setRows((rs) => rs.map((r) => (r.id === id ? { ...r, ...saved } : r)));
    } catch (err) {
      setRows((rs) => rs.map((r) => (r.id === id ? row : r)));
      toast.error(errorText(err, 'tasks.toast.updateFailed'), t('tasks.toast.error'));
      if (err instanceof ApiError && err.status === 409) reload();
    }
  };
  const editKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') void commit();
    if (event.key === 'Escape') setEditing(null);
  };

  // ---- columns: drag, resize, show and hide -------------------------------------------------
  const visible = useMemo(
    () => (prefs ? prefs.order.filter((k) => !prefs.hidden.includes(k)).map((k) => COLUMN_BY_KEY.get(k)).filter((c): c is TaskColumn => !!c) : []),
    [prefs],
  );
  const onDrop = (target: string) => (event: DragEvent) => {
    event.preventDefault();
    const moved = dragged.current ?? event.dataTransfer.getData('text/plain');
    dragged.current = null;
    if (moved) update((p) => ({ ...p, order: moveColumn(p.order, moved, target) }));
  };
  const startResize = (key: string) => (event: ReactMouseEvent) => {
    event.preventDefault();
    event.stopPropagation();
    const startX = event.clientX;
    const startWidth = prefs ? columnWidth(prefs, key) : DEFAULT_COLUMN_WIDTH;
    const move = (e: MouseEvent) => update((p) => ({ ...p, widths: { ...p.widths, [key]: clampWidth(startWidth + e.clientX - startX) } }));
    const up = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  };
  const setHidden = (hidden: string[]) => update((p) => ({ ...p, hidden }));

  const doExport = async (format: 'csv' | 'excel') => {
    setMenu(null);
    const q = pagedQuery(query, false);
    q.set('columns', visible.map((c) => c.key).join(','));
    try {
      await exportTasks(q, format);
    } catch (err) {
      toast.error(errorText(err, 'tasks.toast.exportFailed'), t('tasks.toast.error'));
    }
  };

  // ---- cells ---------------------------------------------------------------------------------
  const ctx = { locale, dateFormat: user?.dateFormat };
  const cellText = (row: Task, c: TaskColumn): string => {
    const value = (row as unknown as Record<string, unknown>)[c.key];
    switch (c.kind) {
      case 'amount':
        return formatDecimal(value ?? '0', 2, locale);
      case 'datetime':
        return formatValue(value, DATETIME, ctx);
      case 'status':
        return t(`tasks.status.${row.isStatus}`, { defaultValue: row.statusLabel });
      default:
        return value === null || value === undefined ? '' : String(value);
    }
  };
  const label = (key: string) => t(`tasks.columns.${key}`);

  const filterInput = (c: TaskColumn) => {
    const value = filterInputs[c.key] ?? '';
    const set = (v: string) => setFilterInputs((f) => ({ ...f, [c.key]: v }));
    const common = { 'aria-label': t('tasks.grid.filter', { column: label(c.key) }), 'data-testid': `task-filter-${c.key}`, className: 'task-filter' };
    if (c.kind === 'status') {
      return (
        <select {...common} value={value} onChange={(e) => set(e.target.value)}>
          <option value="">{t('tasks.grid.anyStatus')}</option>
          {[1, 2, 3].map((s) => (
            <option key={s} value={String(s)}>
              {t(`tasks.status.${s}`)}
            </option>
          ))}
        </select>
      );
    }
    if (c.kind === 'datetime') {
      // The app's date picker in the user's format (the grids' filters use it), not the
      // browser's mm/dd/yyyy; the filter is the day as yyyy-MM-dd, as the server reads it.
      return (
        <span className="task-filter-date" data-testid={common['data-testid']}>
          <DateOfBirthInput
            inputId={`task-filter-${c.key}-input`}
            ariaLabel={common['aria-label']}
            value={fromIsoDate(value)}
            onChange={(date) => set(date ? toIsoDate(date) : '')}
            dateFormat={user?.dateFormat}
            anyDay
          />
        </span>
      );
    }
    return <input {...common} type={c.kind === 'int' ? 'number' : 'text'} value={value} onChange={(e) => set(e.target.value)} />;
  };

  if (!prefs) return <p className="tasks-loading">{t('tasks.grid.loading')}</p>;
  const colSpan = visible.length + 2;

  return (
    <div className="task-table" data-testid="task-table">
      <div className="task-toolbar">
        <h2 className="task-toolbar__title">{t('tasks.title')}</h2>
        <div className="task-toolbar__actions">
          <Button type="button" size="small" icon="pi pi-plus" label={t('tasks.toolbar.create')} onClick={() => setCreating(true)} data-testid="task-create" />
          <div className="task-menu">
            <Button
              type="button"
              size="small"
              outlined
              icon="pi pi-list"
              label={t('tasks.toolbar.actions')}
              onClick={() => setMenu(menu === 'columns' ? null : 'columns')}
              aria-expanded={menu === 'columns'}
              data-testid="task-actions"
            />
            {menu === 'columns' && (
              <div className="task-menu__panel" role="menu" data-testid="task-columns-menu">
                <button type="button" className="link-button" onClick={() => setHidden([])} data-testid="task-show-all">
                  {t('tasks.toolbar.showAll')}
                </button>
                <button type="button" className="link-button" onClick={() => setHidden(prefs.order)} data-testid="task-hide-all">
                  {t('tasks.toolbar.hideAll')}
                </button>
                <hr />
                {prefs.order.map((k) => (
                  <label key={k} className="task-menu__item">
                    <input
                      type="checkbox"
                      checked={!prefs.hidden.includes(k)}
                      onChange={(e) => setHidden(e.target.checked ? prefs.hidden.filter((h) => h !== k) : [...prefs.hidden, k])}
                      data-testid={`task-column-toggle-${k}`}
                    />{' '}
                    {label(k)}
                  </label>
                ))}
              </div>
            )}
          </div>
          <div className="task-menu">
            <Button
              type="button"
              size="small"
              outlined
              icon="pi pi-download"
              label={t('tasks.toolbar.export')}
              onClick={() => setMenu(menu === 'export' ? null : 'export')}
              aria-expanded={menu === 'export'}
              data-testid="task-export"
            />
            {menu === 'export' && (
              <div className="task-menu__panel" role="menu">
                <button type="button" className="link-button" onClick={() => void doExport('csv')} data-testid="task-export-csv">
                  {t('tasks.toolbar.exportCsv')}
                </button>
                <button type="button" className="link-button" onClick={() => void doExport('excel')} data-testid="task-export-excel">
                  {t('tasks.toolbar.exportExcel')}
                </button>
              </div>
            )}
          </div>
          <Button type="button" size="small" text icon="pi pi-refresh" aria-label={t('tasks.toolbar.refresh')} title={t('tasks.toolbar.refresh')} onClick={reload} />
        </div>
      </div>

      <div className="task-table__scroll">
        <table className="task-grid" style={{ width: 2 * ICON_COLUMN + visible.reduce((w, c) => w + columnWidth(prefs, c.key), 0) }}>
          <colgroup>
            <col style={{ width: ICON_COLUMN }} />
            <col style={{ width: ICON_COLUMN }} />
            {visible.map((c) => (
              <col key={c.key} style={{ width: columnWidth(prefs, c.key) }} />
            ))}
          </colgroup>
          <thead>
            <tr>
              <th />
              <th />
              {visible.map((c) => {
                const sorted = sort?.column === c.key ? sort.order : null;
                return (
                  <th
                    key={c.key}
                    draggable
                    title={t('tasks.grid.dragHint')}
                    onDragStart={(e) => {
                      dragged.current = c.key;
                      e.dataTransfer.setData('text/plain', c.key);
                      e.dataTransfer.effectAllowed = 'move';
                    }}
                    onDragOver={(e) => e.preventDefault()}
                    onDrop={onDrop(c.key)}
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                    data-testid={`task-header-${c.key}`}
                    className={c.kind === 'amount' || c.kind === 'int' ? 'num' : undefined}
                  >
                    <button
                      type="button"
                      className="task-grid__sort"
                      onClick={() => {
                        setSort(nextSort(sort, c.key));
                        setPage(1);
                      }}
                    >
                      {label(c.key)}
                      {sorted && (
                        <i
                          className={`pi ${sorted === 'asc' ? 'pi-sort-amount-up-alt' : 'pi-sort-amount-down'}`}
                          aria-label={sorted === 'asc' ? t('tasks.grid.sortAsc') : t('tasks.grid.sortDesc')}
                          data-testid={`task-sort-${sorted}`}
                        />
                      )}
                    </button>
                    <span className="task-grid__resize" onMouseDown={startResize(c.key)} data-testid={`task-resize-${c.key}`} aria-hidden="true" />
                  </th>
                );
              })}
            </tr>
            <tr className="task-grid__filters">
              <th />
              <th />
              {visible.map((c) => (
                <th key={c.key}>{filterInput(c)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {loading && (
              <tr>
                <td colSpan={colSpan} className="tasks-loading" data-testid="tasks-loading">
                  {t('tasks.grid.loading')}
                </td>
              </tr>
            )}
            {!loading && rows.length === 0 && (
              <tr>
                <td colSpan={colSpan} className="tasks-empty">
                  {t('tasks.grid.empty')}
                </td>
              </tr>
            )}
            {rows.map((row) => {
              const open = expanded[row.id];
              return [
                <tr key={row.id} onDoubleClick={() => setEditTask(row.id)} data-testid={`task-row-${row.id}`}>
                  <td>
                    <button
                      type="button"
                      className="task-expander"
                      onClick={() => toggle(row.id)}
                      aria-expanded={open !== undefined}
                      aria-label={open !== undefined ? t('tasks.grid.collapse') : t('tasks.grid.expand')}
                      data-testid={`task-expand-${row.id}`}
                    >
                      {open !== undefined ? '−' : '+'}
                    </button>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="grid-icon-button"
                      title={t('tasks.grid.edit')}
                      aria-label={t('tasks.grid.edit')}
                      onClick={() => setEditTask(row.id)}
                      data-testid={`task-edit-${row.id}`}
                    >
                      <i className="pi pi-pencil" aria-hidden="true" />
                    </button>
                  </td>
                  {visible.map((c) => {
                    if (editing && editing.id === row.id && editing.key === c.key) {
                      return (
                        <td key={c.key} className="task-cell--editing">
                          <input
                            autoFocus
                            className="task-cell-input"
                            value={editing.text}
                            maxLength={c.key === 'taskName' ? 200 : 2000}
                            onChange={(e) => setEditing({ ...editing, text: e.target.value })}
                            onKeyDown={editKey}
                            onBlur={() => void commit()}
                            onDoubleClick={(e) => e.stopPropagation()}
                            data-testid={`task-cell-input-${c.key}`}
                          />
                        </td>
                      );
                    }
                    const text = cellText(row, c);
                    return (
                      <td
                        key={c.key}
                        className={[c.kind === 'amount' || c.kind === 'int' ? 'num' : '', c.editable ? 'task-cell--editable' : ''].join(' ').trim() || undefined}
                        title={text}
                        onClick={c.editable ? () => setEditing({ id: row.id, key: c.key, text: text }) : undefined}
                        onDoubleClick={c.editable ? (e) => e.stopPropagation() : undefined}
                        data-testid={`task-cell-${c.key}-${row.id}`}
                      >
                        {text}
                      </td>
                    );
                  })}
                </tr>,
                open !== undefined && (
                  <tr key={`${row.id}-detail`} className="task-detail" data-testid={`task-detail-${row.id}`}>
                    <td colSpan={colSpan}>
                      {open === 'loading' ? t('tasks.grid.loading') : open === 'failed' ? t('tasks.toast.relationsFailed') : <RelationTables rel={open} />}
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
        </table>
      </div>

      <div className="task-pager" data-testid="task-pager">
        <Button type="button" size="small" outlined label={t('tasks.pager.previous')} disabled={page <= 1} onClick={() => goTo(page - 1)} data-testid="task-prev" />
        <span data-testid="task-page">{t('tasks.pager.page', { page, pages })}</span>
        <Button type="button" size="small" outlined label={t('tasks.pager.next')} disabled={page >= pages} onClick={() => goTo(page + 1)} data-testid="task-next" />
        <label>
          {t('tasks.pager.pageSize')}{' '}
          <select
            value={pageSize}
            onChange={(e) => {
              const size = Number(e.target.value);
              update((p) => ({ ...p, pageSize: size }));
              setPage(1);
            }}
            data-testid="task-page-size"
          >
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <span className="task-pager__total" data-testid="task-total">
          {t('tasks.pager.total', { count: total })}
        </span>
      </div>

      {editTask !== null && (
        <TaskEditorDialog
          mode="edit"
          taskId={editTask}
          onClose={() => setEditTask(null)}
          onSaved={() => {
            setExpanded({});
            reload();
          }}
        />
      )}
      {creating && <TaskEditorDialog mode="create" onClose={() => setCreating(false)} onSaved={reload} />}
    </div>
  );
}

/** The expander's sub-tables: the task's tickets and transactions, or 'no tickets' / 'no transactions'. */
export function RelationTables({ rel }: { rel: Relations }) {
  const { t } = useTranslation();
  return (
    <div className="task-detail__tables">
      <section>
        <h4>{t('tasks.editor.tickets', { count: rel.ticketCount })}</h4>
        {rel.tickets.length === 0 ? (
          <p className="tasks-empty">{t('tasks.grid.noTickets')}</p>
        ) : (
          <TicketTable tickets={rel.tickets} columns={['ticketNumber', 'transDate', 'paymentType', 'countryCode', 'currency', 'transactionCode', 'amount']} />
        )}
      </section>
      <section>
        <h4>{t('tasks.editor.transactions', { count: rel.transactionCount })}</h4>
        {rel.transactions.length === 0 ? (
          <p className="tasks-empty">{t('tasks.grid.noTransactions')}</p>
        ) : (
          <TransactionTable transactions={rel.transactions} columns={['clientUniqueId', 'date', 'acquiringBank', 'paymentMethod', 'currency', 'transactionType', 'amount']} />
        )}
      </section>
      {!!rel.records?.length && (
        <section data-testid="task-records">
          <h4>{t('tasks.grid.otherRecords', { count: rel.records.length })}</h4>
          <ul className="task-records">
            {rel.records.map((r) => (
              <li key={`${r.kind}-${r.id}`}>
                <span className="muted">{t(`recon.kinds.${r.kind}`)}</span> {r.ref ?? `#${r.id}`}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
