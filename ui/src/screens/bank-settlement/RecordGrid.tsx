/**
 * A grid of records inside a dialog (manual reconcile, details): the columns of spec 03
 * sections 3.3 and 3.4, 20px rows, amounts with 2 decimals right-aligned, dates in the user's
 * format. Multi-select when `onToggle` is given (a checkbox per row; a click anywhere on a row
 * ticks or unticks it; no select-all), rows coloured by their match status, and an optional
 * column of row buttons. Rows ranked near the dialog's ticks (`ranked`) lead with a narrow
 * column: a badge when a row shares a reference with a ticked record of the other side, and
 * how far its amount is from what the group still lacks; the rows that would close the group
 * (no gap, or within the tolerance when the list keeps only those) are tinted.
 */
import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataGrid, type Column } from 'react-data-grid';
import { useCurrentUser } from '../../auth/useSession';
import { formatValue, type FormatContext } from '../../engine/fields';
import { ROW_HEIGHT } from '../../engine/GridView';
import type { ColumnMeta, Row } from '../../engine/types';
import { isRanked, type NearFields, type RecordColumn } from './recon';

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

const GAP_META = asMeta({ field: 'AmountGap', type: 'decimal' });
const ZERO = /^-?0*(\.0*)?$/;

/**
 * A ranked row that would close the group: no gap at all, or any gap when the server kept only
 * the records within the level's tolerance (sumsTo). A gap in another currency (null) never does.
 */
export function closesGroup(row: Row, sumsTo: boolean): boolean {
  const gap = (row as NearFields).AmountGap;
  if (gap === null || gap === undefined || !isRanked(row)) return false;
  return sumsTo || ZERO.test(String(gap).trim());
}

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
  ranked,
}: {
  rows: Row[];
  columns: RecordColumn[];
  /** In px, or a CSS length (e.g. "100%" to fill a flex box the caller sizes). */
  height: number | string;
  testId: string;
  /** The ticked rows' keys (their ids). */
  selectedIds?: ReadonlySet<string>;
  onToggle?(row: Row): void;
  /** Colour rows and show a status column from MatchStatus (details). */
  withStatus?: boolean;
  actions?(row: Row): ReactNode;
  actionsWidth?: number;
  /** The rows are ranked near the dialog's ticks: show their marker column; sumsTo as asked. */
  ranked?: { sumsTo: boolean };
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
    if (ranked) {
      out.push({
        key: '__near',
        name: t('recon.manual.near.column'),
        width: 96,
        frozen: true,
        renderHeaderCell: () => (
          <span className="record-grid__near-header" title={t('recon.manual.near.columnTitle')}>
            {t('recon.manual.near.column')}
          </span>
        ),
        renderCell: ({ row }) => <NearMarker row={row} testId={`${testId}-near-${keyOf(row)}`} ctx={ctx} />,
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
        width: column.width ?? (column.type === 'date' ? 100 : numeric ? 110 : 130),
        resizable: true,
        cellClass: numeric ? 'grid-cell--number' : undefined,
        headerCellClass: numeric ? 'grid-header--number' : undefined,
        renderCell: ({ row }) => {
          const shown = formatValue(row[column.field], meta, ctx);
          // A text cut by a narrowed column still reads whole on hover.
          return numeric || !shown ? shown : <span title={shown}>{shown}</span>;
        },
      });
    }
    return out;
  }, [columns, ctx, t, onToggle, selectedIds, testId, withStatus, actions, actionsWidth, ranked]);

  return (
    <div data-testid={testId} className="record-grid">
      <DataGrid<Row>
        className="rdg-light grid-table"
        style={{ height: typeof height === 'number' ? `${height}px` : height }}
        columns={gridColumns}
        rows={rows}
        rowKeyGetter={keyOf}
        rowHeight={ROW_HEIGHT}
        headerRowHeight={28}
        rowClass={(row) =>
          [
            withStatus ? `grid-row--${matchSeverity(row.MatchStatus)}` : '',
            selectedIds?.has(keyOf(row)) ? 'record-grid__row--picked' : ranked && closesGroup(row, ranked.sumsTo) ? 'record-grid__row--closes' : '',
          ]
            .join(' ')
            .trim() || undefined
        }
        onCellClick={onToggle ? ({ row }) => onToggle(row) : undefined}
        renderers={{ noRowsFallback: <div className="grid-empty"><span className="grid-empty__text">{t('grid.empty')}</span></div> }}
      />
    </div>
  );
}

/** A ranked row's marker: the same-reference badge and the amount gap, right-aligned. */
function NearMarker({ row, testId, ctx }: { row: Row; testId: string; ctx: FormatContext }) {
  const { t } = useTranslation();
  // A ticked record kept listed from an earlier list carries no ranking: nothing to say.
  if (!isRanked(row)) return null;
  const { SameReference, AmountGap } = row as NearFields;
  const gap = AmountGap === null || AmountGap === undefined ? null : formatValue(AmountGap, GAP_META, ctx);
  return (
    <span className="record-grid__near" data-testid={testId}>
      {SameReference === true && (
        <span className="record-grid__same-ref" title={t('recon.manual.near.sameReferenceTitle')} data-testid={`${testId}-ref`}>
          <i className="pi pi-link" aria-hidden="true" />
          {t('recon.manual.near.sameReference')}
        </span>
      )}
      <span className="record-grid__gap" title={gap === null ? t('recon.manual.near.otherCurrency') : t('recon.manual.near.gapTitle', { gap })} data-testid={`${testId}-gap`}>
        {gap ?? '–'}
      </span>
    </span>
  );
}
