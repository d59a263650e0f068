/**
 * Reports / bank overview (route dashboard/reports, screen id 15, spec 03 §2.4): the filter
 * accordion with its badge, the pivot table (Period first, sortable headers, RowTotal last, a
 * global text filter, the pager, Excel export of the rows shown) and beside it a stacked bar
 * chart of the same rows, loaded lazily so the chart library stays out of the first load.
 * A cell opens the processed bank files screen filtered to the bookings it sums. When the
 * periods shown lie in closed months, a note says who closed them and when.
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { Accordion, AccordionTab } from 'primereact/accordion';
import { Badge } from 'primereact/badge';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { ProgressBar } from 'primereact/progressbar';
import { ScreenHeader } from '../../components/ScreenHeader';
import { ClosedPeriodsNote } from '../../components/ClosedPeriodsNote';
import { closedOverlapping, useClosedPeriods } from '../../api/periods';
import { useToast } from '../../shell/toast';
import { getScreenIds } from '../../auth/session';
import { pathGranted } from '../../auth/screens';
import { useCurrentUser } from '../../auth/useSession';
import { api } from '../../api/client';
import { downloadFile } from '../../engine/api';
import { countChanged, loadParams, OPTIONS, PARAM_NAMES, saveParams, type BankOverviewParams, type ParamName } from './bankOverviewParams';
import {
  bookingsLink,
  DEFAULT_PAGE_SIZE,
  filterRows,
  formatAmount,
  nextSort,
  PAGE_SIZES,
  pageCount,
  pageOf,
  periodLabel,
  ROW_TOTAL,
  sortRows,
  type BankOverview,
  type PivotColumn,
  type PivotRow,
  type SortState,
} from './pivot';
import './reports.css';

const BankOverviewChart = lazy(() => import('./BankOverviewChart'));

/** The processed bank files screen, where a cell's link goes. */
const PROCESSED_BANK_PATH = '/dashboard/csvprocessed';

type Load = { state: 'loading' } | { state: 'failed' } | { state: 'loaded'; overview: BankOverview };

export default function ReportsScreen() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const locale = i18n.language || 'en';
  // Re-renders when the session (its screens, the user's date format) changes.
  const user = useCurrentUser();
  const dateFormat = user?.dateFormat;
  const period = useCallback((p: string) => periodLabel(p, dateFormat), [dateFormat]);
  const canOpenBookings = pathGranted(PROCESSED_BANK_PATH, getScreenIds());

  const [applied, setApplied] = useState<BankOverviewParams>(() => loadParams());
  const [draft, setDraft] = useState<BankOverviewParams>(applied);
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [sort, setSort] = useState<SortState | null>(null);
  const [text, setText] = useState('');
  const [pageSize, setPageSize] = useState<number>(DEFAULT_PAGE_SIZE);
  const [page, setPage] = useState(1);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const periods = useClosedPeriods();

  // The failure toast in the language of the moment, without loading again when it changes.
  const failed = useRef(() => {});
  failed.current = () => toast.error(t('reports.loadFailed'));
  useEffect(() => {
    let live = true;
    setLoad({ state: 'loading' });
    api
      .postQuiet<BankOverview>('/reports/bank-overview', applied)
      .then((overview) => live && setLoad({ state: 'loaded', overview }))
      .catch(() => {
        if (!live) return;
        setLoad({ state: 'failed' });
        failed.current();
      });
    return () => {
      live = false;
    };
  }, [applied]);

  const apply = () => {
    saveParams(draft);
    setApplied({ ...draft });
    setPage(1);
    setFiltersOpen(false);
  };

  const overview = load.state === 'loaded' ? load.overview : null;
  const columns = useMemo(() => overview?.columns ?? [], [overview]);
  const totalLabel = t('reports.rowTotal');
  const shown = useMemo(() => {
    if (!overview) return [];
    return sortRows(filterRows(overview.data, columns, text, locale, totalLabel, period), sort);
  }, [overview, columns, text, locale, totalLabel, period, sort]);
  // The days the periods shown cover: the first one's start to the last one's end.
  const closed = useMemo(() => {
    const rows = shown.filter((r) => r.Period !== ROW_TOTAL);
    if (rows.length === 0) return [];
    const from = rows.reduce((min, r) => (r.PeriodFrom < min ? r.PeriodFrom : min), rows[0]!.PeriodFrom);
    const to = rows.reduce((max, r) => (r.PeriodTo > max ? r.PeriodTo : max), rows[0]!.PeriodTo);
    return closedOverlapping(periods, from, to);
  }, [shown, periods]);
  const pages = pageCount(shown.length, pageSize);
  const current = Math.min(page, pages);
  const visible = pageOf(shown, current, pageSize);
  // The chart follows the text filter, in time order, without the total row.
  const chartRows = useMemo(
    () => (overview ? filterRows(overview.data, columns, text, locale, totalLabel, period).filter((r) => r.Period !== ROW_TOTAL) : []),
    [overview, columns, text, locale, totalLabel, period],
  );

  const columnLabel = useCallback(
    (c: PivotColumn) => {
      if (c.kind === 'period') return t('reports.period');
      if (c.kind === 'total') return t('reports.total');
      return c.actor ?? t('reports.noActor');
    },
    [t],
  );

  const exportShown = async () => {
    try {
      await downloadFile(
        '/reports/bank-overview/export',
        {
          ...applied,
          periods: shown.map((r) => r.Period),
          labels: { Period: t('reports.period'), Total: t('reports.total'), '(none)': t('reports.noActor'), RowTotal: totalLabel },
          // the periods as the screen shows them (days in the reader's date format)
          periodLabels: Object.fromEntries(shown.filter((r) => r.Period !== ROW_TOTAL).map((r) => [r.Period, period(r.Period)])),
        },
        'Bank_Overview.xlsx',
      );
    } catch (err) {
      toast.error((err as Error).message || t('reports.exportFailed'));
    }
  };

  const changed = countChanged(applied);
  const header = (
    <span className="reports-filters__header">
      {t('reports.filters')}
      {changed > 0 && <Badge value={changed} className="reports-filters__badge" data-testid="reports-filter-badge" />}
    </span>
  );

  return (
    <section className="screen reports-screen" data-testid="screen-reports">
      <ScreenHeader title={t('REPORTS.TITLE')} />
      <Accordion activeIndex={filtersOpen ? 0 : null} onTabChange={(e) => setFiltersOpen(e.index === 0)} className="reports-filters">
        <AccordionTab header={header} pt={{ headerAction: { 'data-testid': 'reports-filters-toggle' } as object }}>
          <div className="reports-filters__fields">
            {PARAM_NAMES.map((name) => (
              <ParamField key={name} name={name} value={draft[name]} onChange={(v) => setDraft((d) => ({ ...d, [name]: v }))} />
            ))}
            <Button type="button" label={t('reports.apply')} icon="pi pi-check" onClick={apply} data-testid="reports-apply" />
          </div>
        </AccordionTab>
      </Accordion>

      <div className="reports-body">
        <div className="card reports-table-card">
          <div className="pivot-toolbar">
            <span className="p-input-icon-left pivot-search">
              <i className="pi pi-search" aria-hidden="true" />
              <InputText
                value={text}
                onChange={(e) => {
                  setText(e.target.value);
                  setPage(1);
                }}
                placeholder={t('reports.search')}
                aria-label={t('reports.search')}
                data-testid="pivot-filter"
              />
            </span>
            <Button
              type="button"
              size="small"
              outlined
              icon="pi pi-file-excel"
              label={t('reports.exportExcel')}
              disabled={shown.length === 0}
              onClick={exportShown}
              data-testid="pivot-export"
            />
            <ClosedPeriodsNote periods={closed} />
          </div>
          {load.state === 'loading' && <ProgressBar mode="indeterminate" className="pivot-progress" />}
          {load.state === 'failed' && (
            <div className="pivot-message pivot-message--error" data-testid="pivot-error" role="alert">
              {t('reports.loadFailed')}
            </div>
          )}
          {overview && shown.length === 0 && (
            <div className="pivot-message" data-testid="pivot-empty">
              {t('reports.noData')}
            </div>
          )}
          {overview && shown.length > 0 && (
            <div className="pivot-scroll">
              <table className="pivot-table" data-testid="pivot-table">
                <thead>
                  <tr>
                    {columns.map((c) => {
                      const sorted = sort?.key === c.key ? sort.order : undefined;
                      return (
                        <th
                          key={c.key}
                          scope="col"
                          className={c.kind === 'period' ? undefined : 'pivot-amount'}
                          aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                        >
                          <button
                            type="button"
                            className="pivot-sort"
                            onClick={() => setSort((s) => nextSort(s, c.key))}
                            data-testid={`pivot-header-${c.key}`}
                          >
                            {columnLabel(c)}
                            <i
                              className={`pi ${sorted === 'asc' ? 'pi-sort-amount-up-alt' : sorted === 'desc' ? 'pi-sort-amount-down' : 'pi-sort-alt'}`}
                              aria-hidden="true"
                            />
                          </button>
                        </th>
                      );
                    })}
                  </tr>
                </thead>
                <tbody>
                  {visible.map((row) => (
                    <PivotTableRow
                      key={row.Period}
                      row={row}
                      columns={columns}
                      locale={locale}
                      totalLabel={totalLabel}
                      periodText={period}
                      linkTo={canOpenBookings ? (c) => bookingsLink(row, c, applied) : undefined}
                      linkTitle={(c) => t('reports.openBookings', { period: row.Period === ROW_TOTAL ? totalLabel : period(row.Period), column: columnLabel(c) })}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="pivot-pager">
            <label className="pivot-pager__size">
              {t('reports.rows')}
              <Dropdown
                value={pageSize}
                options={PAGE_SIZES.map((n) => ({ label: String(n), value: n }))}
                onChange={(e) => {
                  setPageSize(e.value as number);
                  setPage(1);
                }}
                data-testid="pivot-page-size"
              />
            </label>
            <Button type="button" size="small" text label={t('reports.prev')} disabled={current <= 1} onClick={() => setPage(current - 1)} data-testid="pivot-prev" />
            <span data-testid="pivot-page" aria-live="polite">
              {t('reports.pageOf', { page: current, pages })}
            </span>
            <Button type="button" size="small" text label={t('reports.next')} disabled={current >= pages} onClick={() => setPage(current + 1)} data-testid="pivot-next" />
          </div>
        </div>
        <div className="card reports-chart-card">
          {overview && chartRows.length > 0 && (
            <Suspense fallback={<ProgressBar mode="indeterminate" className="pivot-progress" />}>
              <BankOverviewChart
                rows={chartRows}
                actors={columns.filter((c) => c.kind === 'actor')}
                actorLabel={columnLabel}
                periodLabel={period}
                locale={locale}
                title={t('reports.chartTitle', { grouping: t(`reports.options.${applied.dateGroupingType}`) })}
              />
            </Suspense>
          )}
        </div>
      </div>
    </section>
  );
}

function ParamField({ name, value, onChange }: { name: ParamName; value: string; onChange(value: string): void }) {
  const { t } = useTranslation();
  const id = `reports-param-${name}`;
  return (
    <div className="reports-filters__field">
      <label htmlFor={id}>{t(`reports.params.${name}`)}</label>
      <Dropdown
        inputId={id}
        value={value}
        options={OPTIONS[name].map((v) => ({ label: t(`reports.options.${v}`), value: v }))}
        onChange={(e) => onChange(e.value as string)}
        data-testid={id}
      />
    </div>
  );
}

function PivotTableRow({
  row,
  columns,
  locale,
  totalLabel,
  periodText,
  linkTo,
  linkTitle,
}: {
  row: PivotRow;
  columns: PivotColumn[];
  locale: string;
  totalLabel: string;
  periodText(period: string): string;
  linkTo?: (c: PivotColumn) => string;
  linkTitle(c: PivotColumn): string;
}) {
  const isTotal = row.Period === ROW_TOTAL;
  return (
    <tr className={isTotal ? 'pivot-row pivot-row--total' : 'pivot-row'} data-testid="pivot-row">
      {columns.map((c) => {
        if (c.kind === 'period') {
          return (
            <th key={c.key} scope="row">
              {isTotal ? totalLabel : periodText(row.Period)}
            </th>
          );
        }
        const value = row[c.key];
        const text = formatAmount(value, locale);
        return (
          <td key={c.key} className="pivot-amount" data-testid={`pivot-cell-${c.key}`}>
            {linkTo && value !== null && value !== undefined ? (
              <Link to={linkTo(c)} title={linkTitle(c)}>
                {text}
              </Link>
            ) : (
              text
            )}
          </td>
        );
      })}
    </tr>
  );
}
