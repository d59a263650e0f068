/**
 * The expander row of a view with details (views.yaml `details`, e.g. a task's tickets and
 * transactions): a +/− column, and under each expanded row one more row of the grid holding the
 * row's related records (DetailGrids). react-data-grid lays every row out on one CSS grid, so a
 * detail row is a row of its own there (with its own height), drawn by renderRow as one cell
 * across all columns whose content stays in view while the grid scrolls sideways.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Row as GridRow, type Column, type RenderRowProps } from 'react-data-grid';
import type { Row, ViewMeta } from '../types';
import { DetailGrids } from './DetailGrids';

/** The parent's key on a detail row (no view has a field of this name). */
const DETAIL_OF = '__detailOf';
/**
 * Height of an open expander until its content is measured, and the most it takes: it grows to
 * what it holds, up to this, and scrolls inside beyond.
 */
export const DETAIL_HEIGHT = 240;
export const MAX_DETAIL_HEIGHT = 420;
const EXPANDER_WIDTH = 28;

export const isDetailRow = (row: Row): boolean => DETAIL_OF in row;

export interface DetailRows {
  /** Whether the view has an expander at all. */
  enabled: boolean;
  /** The page's rows with a detail row after each expanded one. */
  rows: Row[];
  /** The +/− column (none without details). */
  columns: Column<Row>[];
  rowKey(row: Row): string;
  rowHeight(row: Row): number;
  renderRow(key: Key, props: RenderRowProps<Row>): ReactNode;
}

/**
 * The expander of `view` over the page's `rows`. An expanded row stays open while it is on the
 * page shown; `refreshed` (a count the grid raises at each reload) reads its details again.
 */
export function useDetailRows(view: ViewMeta, rows: Row[], rowHeight: number, refreshed: number): DetailRows {
  const { t } = useTranslation();
  const details = view.details;
  const enabled = !!details?.length;
  const keyOf = useCallback((row: Row) => String(row[view.key]), [view.key]);
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  // The measured height of each open row's details (its content, once drawn).
  const [heights, setHeights] = useState<Readonly<Record<string, number>>>({});
  const measured = useCallback((key: string, height: number) => {
    const h = Math.min(MAX_DETAIL_HEIGHT, Math.ceil(height));
    setHeights((current) => (current[key] === h ? current : { ...current, [key]: h }));
  }, []);

  // Another page, sort or filter: only the rows still shown stay open.
  useEffect(() => {
    setOpen((current) => {
      if (current.size === 0) return current;
      const onPage = new Set(rows.map(keyOf));
      const kept = [...current].filter((k) => onPage.has(k));
      return kept.length === current.size ? current : new Set(kept);
    });
  }, [rows, keyOf]);

  const toggle = useCallback((key: string) => {
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  }, []);

  const shown = useMemo(() => {
    if (!enabled || open.size === 0) return rows;
    const out: Row[] = [];
    for (const row of rows) {
      out.push(row);
      if (open.has(keyOf(row))) out.push({ [DETAIL_OF]: row[view.key] });
    }
    return out;
  }, [enabled, rows, open, keyOf, view.key]);

  const columns = useMemo((): Column<Row>[] => {
    if (!enabled) return [];
    return [
      {
        key: '__expand',
        name: '',
        width: EXPANDER_WIDTH,
        minWidth: EXPANDER_WIDTH,
        frozen: true,
        resizable: false,
        sortable: false,
        cellClass: 'grid-cell--icons',
        renderCell: ({ row }) => {
          const key = keyOf(row);
          const expanded = open.has(key);
          return (
            <button
              type="button"
              className="grid-icon-button grid-expander"
              aria-expanded={expanded}
              aria-label={t(expanded ? 'grid.collapse' : 'grid.expand')}
              title={t(expanded ? 'grid.collapse' : 'grid.expand')}
              data-testid={`row-expand-${key}`}
              onClick={() => toggle(key)}
            >
              {expanded ? '−' : '+'}
            </button>
          );
        },
      },
    ];
  }, [enabled, open, keyOf, toggle, t]);

  const renderRow = useCallback(
    (key: Key, props: RenderRowProps<Row>) => {
      if (!isDetailRow(props.row) || !details) return <GridRow key={key} {...props} />;
      const parent = props.row[DETAIL_OF];
      return (
        <div key={key} role="row" aria-rowindex={props['aria-rowindex']} className="rdg-row grid-detail-row" style={{ gridRowStart: props.gridRowStart }}>
          <div role="gridcell" className="grid-detail-cell">
            <MeasuredDetail onHeight={(h) => measured(String(parent), h)}>
              <div className="grid-detail" data-testid={`row-detail-${String(parent)}`}>
                <DetailGrids details={details} parentKey={parent} refreshed={refreshed} />
              </div>
            </MeasuredDetail>
          </div>
        </div>
      );
    },
    [details, refreshed, measured],
  );

  // (stable functions: react-data-grid lays its rows out again when they change)
  const rowKey = useCallback((row: Row) => (isDetailRow(row) ? `${String(row[DETAIL_OF])}::detail` : keyOf(row)), [keyOf]);
  const heightOf = useCallback(
    (row: Row) => (isDetailRow(row) ? (heights[String(row[DETAIL_OF])] ?? DETAIL_HEIGHT) : rowHeight),
    [heights, rowHeight],
  );
  return { enabled, rows: shown, columns, rowKey, rowHeight: heightOf, renderRow };
}

/** Reports the height its content needs whenever that changes (where the browser can say). */
function MeasuredDetail({ onHeight, children }: { onHeight(height: number): void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const report = useRef(onHeight);
  report.current = onHeight;
  useLayoutEffect(() => {
    const inner = ref.current?.querySelector('.grid-detail__grids');
    const outer = ref.current?.querySelector('.grid-detail');
    if (!inner || !outer || typeof ResizeObserver === 'undefined') return;
    const style = getComputedStyle(outer);
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + 1; // and the row's border
    const observer = new ResizeObserver(() => report.current(inner.getBoundingClientRect().height + padding));
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} className="grid-detail-measure">
      {children}
    </div>
  );
}
