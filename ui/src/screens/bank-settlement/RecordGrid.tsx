/**
 * A grid of records inside a dialog (manual reconcile, details): the columns of spec 03
 * sections 3.3 and 3.4, 20px rows, amounts with 2 decimals right-aligned, dates in the user's
 * format. Multi-select when `onToggle` is given (a checkbox per row; a click anywhere on a row
 * ticks or unticks it; no select-all), rows coloured by their match status, and an optional
 * column of row buttons.
 */
import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataGrid, type Column } from 'react-data-grid';
import { useCurrentUser } from '../../auth/useSession';
import { formatValue, type FormatContext } from '../../engine/fields';
import { ROW_HEIGHT } from '../../engine/GridView';
import type { ColumnMeta, Row } from '../../engine/types';
import type { RecordColumn } from './recon';

/** A record's match status as a severity: matched green, partial, investigation or changed since matched yellow, none red. */
export function matchSeverity(status: unknown): 'success' | 'warning' | 'danger' {
  if (status === 'matched') return 'success';
  if (status === 'partial' || status === 'investigation' || status === 'changed') return 'warning';
  return 'danger';
}

export function useFormatContext(): FormatContext {
  const { i18n } = useTranslation();
  const user = useCurrentUser();
  return useMemo(() => ({ locale: i18n.language || 'en', dateFormat: user?.dateFormat }), [i18n.language, user?.dateFormat]);
}

export function asMeta(column: RecordColumn): ColumnMeta {
  return { field: column.field, type: column.type, label: column.field, sortable: false, ops: [], ...(column.type === 'decimal' ? { scale: 2 } : {}) };
}

/** A record's key: its id (every side's records carry it). */
export const keyOf = (row: Row) => String(row.id);

export function RecordGrid({
  rows,
  columns,
  height,
  testId,
  selectedIds,
  onToggle,
  withStatus,
  actions,
  actionsWidth = 60,
}: {
  rows: Row[];
  columns: RecordColumn[];
  height: number;
  testId: string;
  /** The ticked rows' keys (their ids). */
  selectedIds?: ReadonlySet<string>;
  onToggle?(row: Row): void;
  /** Colour rows and show a status column from MatchStatus (details). */
  withStatus?: boolean;
  actions?(row: Row): ReactNode;
  actionsWidth?: number;
}) {
  const { t } = useTranslation();
  const ctx = useFormatContext();

  const gridColumns = useMemo((): Column<Row>[] => {
    const out: Column<Row>[] = [];
    if (onToggle) {
      out.push({
        key: '__pick',
        name: '',
        width: 28,
        frozen: true,
        // The cell's click toggles the row (onCellClick), the checkbox's own click included: the
        // box only shows the state, so a click is never counted twice.
        renderCell: ({ row }) => (
          <input
            type="checkbox"
            className="record-grid__tick"
            checked={selectedIds?.has(keyOf(row)) ?? false}
            readOnly
            tabIndex={-1}
            aria-label={t('recon.manual.tick', { id: keyOf(row) })}
            data-testid={`${testId}-tick-${keyOf(row)}`}
          />
        ),
      });
    }
    if (withStatus) {
      out.push({
        key: '__status',
        name: t('grid.status'),
        width: 110,
        frozen: true,
        renderCell: ({ row }) => {
          const severity = matchSeverity(row.MatchStatus);
          const label = row.MatchStatus ? t(`recon.status.${String(row.MatchStatus)}`, { defaultValue: String(row.MatchStatus) }) : t('recon.status.unmatched');
          return (
            <span className={`grid-row-status grid-row-status--${severity}`} data-testid="record-status">
              <i className={`pi ${severity === 'success' ? 'pi-check-circle' : severity === 'warning' ? 'pi-exclamation-circle' : 'pi-times-circle'}`} aria-hidden="true" />
              {label}
            </span>
          );
        },
      });
    }
    if (actions) {
      out.push({ key: '__actions', name: '', width: actionsWidth, frozen: true, renderCell: ({ row }) => <span className="record-grid__actions">{actions(row)}</span> });
    }
    for (const column of columns) {
      const meta = asMeta(column);
      const numeric = column.type === 'decimal' || column.type === 'int';
      out.push({
        key: column.field,
        name: t(`recon.fields.${column.field}`, { defaultValue: column.field }),
        width: column.type === 'date' ? 100 : numeric ? 110 : 130,
        resizable: true,
        cellClass: numeric ? 'grid-cell--number' : undefined,
        headerCellClass: numeric ? 'grid-header--number' : undefined,
        renderCell: ({ row }) => formatValue(row[column.field], meta, ctx),
      });
    }
    return out;
  }, [columns, ctx, t, onToggle, selectedIds, testId, withStatus, actions, actionsWidth]);

  return (
    <div data-testid={testId} className="record-grid">
      <DataGrid<Row>
        className="rdg-light grid-table"
        style={{ height: `${height}px` }}
        columns={gridColumns}
        rows={rows}
        rowKeyGetter={keyOf}
        rowHeight={ROW_HEIGHT}
        headerRowHeight={28}
        rowClass={(row) =>
          [withStatus ? `grid-row--${matchSeverity(row.MatchStatus)}` : '', selectedIds?.has(keyOf(row)) ? 'record-grid__row--picked' : '']
            .join(' ')
            .trim() || undefined
        }
        onCellClick={onToggle ? ({ row }) => onToggle(row) : undefined}
        renderers={{ noRowsFallback: <div className="grid-empty"><span className="grid-empty__text">{t('grid.empty')}</span></div> }}
      />
    </div>
  );
}
