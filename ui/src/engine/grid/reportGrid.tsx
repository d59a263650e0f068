/**
 * What a report grid adds to GridView, kept apart from the inline-edit code: the report's
 * param values (GridView's `params`, sent as Params), the row colours and status column of a
 * view's `rowStatus`, a reload the screen can ask for, and row double-click / context menu.
 */
import { useEffect, useMemo, useRef, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { CellMouseArgs, CellMouseEvent, Column } from 'react-data-grid';
import type { GridController } from '../useGrid';
import type { Row, ViewMeta } from '../types';
import { InputSwitch } from 'primereact/inputswitch';
import { openRowsFilter, rowBadge, rowStatusClass, SEVERITY_ICON } from './rowStatus';
import { ColumnHeader } from './ColumnHeader';
import type { FilterInput } from '../fields';

export interface ReportGridProps {
  /** The values of the view's declared params (a report's filters), sent as Params. */
  params?: Record<string, unknown>;
  /** Change it to load the current page again (after a run or a match elsewhere on the screen). */
  reloadToken?: number;
  onRowDoubleClick?(row: Row): void;
  onRowContextMenu?(row: Row, event: MouseEvent<HTMLDivElement>): void;
  /** Told the message when a page fails to load (the grid shows it too). */
  onLoadError?(message: string): void;
}

const STATUS_COLUMN_WIDTH = 132;

/**
 * openFilter opens the filter popover of a field (GridView's): the status column's header
 * offers it for the rule's field, as a choice of statuses (statusFilterColumn).
 */
export function useReportGrid(
  view: ViewMeta,
  grid: GridController,
  { reloadToken, onRowDoubleClick, onRowContextMenu, onLoadError }: ReportGridProps,
  openFilter: (field: string, event: MouseEvent<HTMLElement>) => void,
) {
  const { t } = useTranslation();
  const rule = view.rowStatus;

  // A new token reloads the page shown; the first render loads anyway.
  const shown = useRef(reloadToken);
  const { refresh } = grid;
  useEffect(() => {
    if (shown.current === reloadToken) return;
    shown.current = reloadToken;
    refresh();
  }, [reloadToken, refresh]);

  const reportError = useRef(onLoadError);
  reportError.current = onLoadError;
  useEffect(() => {
    if (grid.error) reportError.current?.(grid.error);
  }, [grid.error]);

  const columns = useMemo((): Column<Row>[] => {
    if (!rule) return [];
    return [
      {
        // keyed by the status field: a click on the header sorts by it
        key: rule.field,
        name: t('grid.status'),
        width: STATUS_COLUMN_WIDTH,
        minWidth: 60,
        frozen: true,
        resizable: true,
        sortable: true,
        renderHeaderCell: ({ sortDirection }) => (
          <ColumnHeader field={rule.field} name={t('grid.status')} sortDirection={sortDirection} filterable filtered={!!grid.filters[rule.field]} openFilter={openFilter} />
        ),
        renderCell: ({ row }) => {
          const badge = rowBadge(rule, row);
          if (!badge) return null;
          return (
            <span className={`grid-row-status grid-row-status--${badge.severity}`} data-testid="row-status" data-severity={badge.severity}>
              <i className={`pi ${SEVERITY_ICON[badge.severity] ?? 'pi-circle'}`} aria-hidden="true" />
              {t(badge.label, { defaultValue: badge.label })}
            </span>
          );
        },
      },
    ];
  }, [rule, t, grid.filters, openFilter]);

  const gridProps = {
    rowClass: rule ? (row: Row) => rowStatusClass(rule, row) : undefined,
    onCellDoubleClick: onRowDoubleClick
      ? (args: CellMouseArgs<Row>, event: CellMouseEvent) => {
          event.preventGridDefault();
          window.getSelection()?.removeAllRanges(); // the double-click selected a word
          onRowDoubleClick(args.row);
        }
      : undefined,
    onCellContextMenu: onRowContextMenu
      ? (args: CellMouseArgs<Row>, event: CellMouseEvent) => {
          event.preventGridDefault();
          event.preventDefault();
          onRowContextMenu(args.row, event as unknown as MouseEvent<HTMLDivElement>);
        }
      : undefined,
  };
  // "Open only": the rows whose status is not a success (matched), as a filter of the grid.
  const openRows = useMemo(() => openRowsFilter(rule), [rule]);
  const openOnly = !!rule && !!openRows && sameFilter(grid.filters[rule.field], openRows);
  const toolbar =
    rule && openRows ? (
      <label className="grid-open-only">
        <InputSwitch
          checked={openOnly}
          onChange={(e) => grid.setFilter(rule.field, e.value ? openRows : null)}
          data-testid="grid-open-only"
          aria-label={t('grid.openOnly')}
        />
        <span>{t('grid.openOnly')}</span>
      </label>
    ) : null;
  return { columns, gridProps, toolbar };
}

/** Whether a column's filter is the "Open only" one (the status filter may hold another choice). */
function sameFilter(a: FilterInput | undefined, b: FilterInput): boolean {
  return !!a && a.op === b.op && a.value === b.value;
}
