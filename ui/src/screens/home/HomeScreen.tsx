/**
 * Home (route dashboard/home, screen id 1): the month's figures a finance lead opens the day
 * with, from one call (GET /home?month=YYYY-MM): per reconciliation level the matched, partial
 * and unmatched counts and amounts with the match rate, the daily unmatched trend (a chart,
 * loaded lazily), the oldest unmatched records, the last automatic run per level, open tasks,
 * the last imports and the bank totals, and the four-eyes approvals (how many wait for the
 * user's decision, and the user's own requests with their outcome). The server leaves out what
 * the caller's screens do not permit; each figure links to the screen that explains it. Amounts
 * are USD.
 */
import { lazy, Suspense, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ProgressBar } from 'primereact/progressbar';
import { Tag } from 'primereact/tag';
import { ScreenHeader } from '../../components/ScreenHeader';
import { MonthInput } from '../../components/MonthInput';
import { api, serverMessage } from '../../api/client';
import { useCurrentUser } from '../../auth/useSession';
import { getScreenIds } from '../../auth/session';
import { pathGranted } from '../../auth/screens';
import { formatDate, formatDateOnly, fromIsoDate } from '../../lib/dates';
import { formatDecimal } from '../../lib/decimal';
import { extractionLogLink } from '../data-import/importFormat';
import type { ImportFile } from '../../api/imports';
import { formatAmount } from '../reports/pivot';
import { codeText, runErrorText } from '../bank-settlement/recon';
import {
  bankLink,
  currentMonth,
  openItemsLink,
  reconcileLink,
  showsApprovals,
  tabOf,
  ticketFilter,
  APPROVAL_SEVERITY,
  APPROVALS_PATH,
  OPEN_ITEMS_PATH,
  REPORTS_PATH,
  SCHEDULES_PATH,
  TASKS_PATH,
  IMPORTS_PATH,
  type HomeApprovals,
  type HomeFigures,
  type LevelFigures,
} from './home';
import './home.css';

const TrendChart = lazy(() => import('./UnmatchedTrendChart'));

const DEFAULT_DATE_FORMAT = 'DD-MM-YYYY HH:mm:ss';
/** The processed bank files screen, where the bookings link goes. */
const PROCESSED_BANK_PATH = '/dashboard/csvprocessed';

export default function HomeScreen() {
  const { t, i18n } = useTranslation();
  const locale = i18n.language || 'en';
  const user = useCurrentUser();
  const dateFormat = user?.dateFormat || DEFAULT_DATE_FORMAT;
  const [month, setMonth] = useState(currentMonth);
  const [figures, setFigures] = useState<HomeFigures | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let live = true;
    setFailed(false);
    api
      .getQuiet<HomeFigures>(`/home?month=${encodeURIComponent(month)}`)
      .then((f) => live && setFigures(f))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [month]);

  const count = useMemo(() => new Intl.NumberFormat(locale), [locale]);
  const day = (iso: string) => {
    const d = fromIsoDate(iso);
    return d ? formatDateOnly(d, dateFormat) : iso;
  };
  const moment = (iso: string | null | undefined) => (iso ? formatDate(new Date(iso), dateFormat) : '');
  const usd = (v: string) => `${formatAmount(v, locale)} USD`;
  const f = figures && figures.month === month ? figures : null;
  const canOpenBookings = pathGranted(PROCESSED_BANK_PATH, getScreenIds());
  const nothing = f && !f.levels && !f.tasks && !f.imports && !f.bank && !f.alerts && !showsApprovals(f.approvals);
  // A level by its number, as the figures name it (home.levels.<n>; its slug for a level without one).
  const levelName = (level: number) => t(`home.levels.${level}`, { defaultValue: f?.levels?.find((l) => l.level === level)?.slug ?? String(level) });
  // The levels the runs are shown for: those the figures list, in tab order.
  const runLevels = f?.levels ? f.levels.map((l) => l.level) : [...new Set((f?.lastRuns ?? []).map((r) => r.level))];

  return (
    <section className="screen home-screen" data-testid="screen-home">
      <ScreenHeader
        title={t('screens.home.title')}
        actions={
          <label className="home-month" htmlFor="home-month">
            {t('home.month')}
            <MonthInput inputId="home-month" value={month} onChange={setMonth} dateFormat={user?.dateFormat} />
          </label>
        }
      />
      {!f && !failed && <ProgressBar mode="indeterminate" className="home-progress" />}
      {failed && (
        <div className="card home-message home-message--error" role="alert" data-testid="home-error">
          {t('home.loadFailed')}
        </div>
      )}
      {nothing && (
        <div className="card home-message" data-testid="home-nothing">
          {t('home.nothingPermitted')}
        </div>
      )}
      {f && (
        <div className="home-grid">
          {f.alerts && (
            <Card title={t('home.alerts.title')} link={SCHEDULES_PATH} linkLabel={t('home.alerts.schedules')} testId="home-alerts" wide={f.alerts.length > 0 || !!f.ageing?.overdue}>
              {f.alerts.length === 0 && !f.ageing?.overdue ? (
                <p className="muted">{t('home.alerts.none')}</p>
              ) : (
                <ul className="home-list">
                  {!!f.ageing?.overdue && (
                    <li data-testid="home-alert-overdue">
                      <span>
                        <Tag value={t('home.alerts.kinds.overdue')} severity="warning" />{' '}
                        <Link to={openItemsLink('overdue')}>{t('home.alerts.overdue', { count: f.ageing.overdue, formatted: count.format(f.ageing.overdue) })}</Link>
                      </span>
                    </li>
                  )}
                  {f.alerts.map((a) => (
                    <li key={a.id} data-testid="home-alert">
                      <span>
                        <Tag value={t(`home.alerts.kinds.${a.kind}`)} severity={a.kind === 'fileMissing' ? 'warning' : 'danger'} />{' '}
                        {codeText(t, a.messageCode, a.messageParams, a.message)}
                      </span>
                      <span className="muted home-alert__when">{moment(a.raisedOn)}</span>
                    </li>
                  ))}
                </ul>
              )}
            </Card>
          )}
          {showsApprovals(f.approvals) && <ApprovalsCard approvals={f.approvals} count={count} moment={moment} />}
          {f.levels?.map((l, tab) => (
            <LevelCard key={l.level} level={l} name={levelName(l.level)} tab={tab} from={f.from} to={f.to} count={count} locale={locale} usd={usd} />
          ))}

          {f.unmatchedTrend && (
            <Card title={t('home.trend.title')} link={reconcileLink(0, f.from, f.to)} linkLabel={t('home.openReconcile')} testId="home-trend" wide>
              <Suspense fallback={<ProgressBar mode="indeterminate" className="home-progress" />}>
                <TrendChart
                  days={f.unmatchedTrend}
                  labels={f.levels ? f.levels.map((l) => levelName(l.level)) : (f.unmatchedTrend[0]?.levels ?? []).map((_, i) => String(i + 1))}
                  locale={locale}
                  dayLabel={day}
                  title={t('home.trend.title')}
                />
              </Suspense>
            </Card>
          )}

          {f.oldestUnmatched && (
            <Card title={t('home.oldest.title')} link={reconcileLink(0, f.from, f.to)} linkLabel={t('home.openReconcile')} testId="home-oldest" wide>
              {f.oldestUnmatched.length === 0 ? (
                <p className="muted">{t('home.oldest.none')}</p>
              ) : (
                <table className="home-table home-oldest">
                  <thead>
                    <tr>
                      <th scope="col">{t('home.oldest.level')}</th>
                      <th scope="col">{t('home.oldest.date')}</th>
                      <th scope="col">{t('home.oldest.reference')}</th>
                      <th scope="col" className="home-num">
                        {t('home.oldest.amount')}
                      </th>
                      <th scope="col" className="home-num">
                        {t('home.oldest.age')}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {f.oldestUnmatched.map((u) => (
                      <tr key={`${u.level}-${u.id}`} data-testid="home-oldest-row">
                        <td className="home-oldest__level" title={levelName(u.level)}>
                          {levelName(u.level)}
                        </td>
                        <td className="home-oldest__date">{day(u.date)}</td>
                        <td className="home-oldest__reference">
                          <Link to={reconcileLink(tabOf(f.levels, u.level), u.date, u.date, ticketFilter(u.reference))}>{u.reference}</Link>
                        </td>
                        <td className="home-num home-oldest__amount">
                          {formatDecimal(u.amount, 2, locale)} {u.currency ?? ''}
                        </td>
                        <td className="home-num home-oldest__age" data-testid="home-oldest-age">
                          {t('home.oldest.days', { count: u.ageDays, formatted: count.format(u.ageDays) })}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Card>
          )}

          {f.lastRuns && (
            <Card title={t('home.runs.title')} link={reconcileLink(0, f.from, f.to)} linkLabel={t('home.openReconcile')} testId="home-runs">
              {runLevels.map((n) => {
                const run = f.lastRuns?.find((r) => r.level === n);
                const failure = run?.status === 'failed' ? runErrorText(run, t) : '';
                return (
                  <div key={n} className="home-run" data-testid={`home-run-${n}`}>
                    <Link to={reconcileLink(tabOf(f.levels, n), f.from, f.to)} className="home-run__level">
                      {levelName(n)}
                    </Link>
                    {run ? (
                      <span>
                        <Tag value={t(`home.runs.status.${run.status}`)} severity={run.status === 'succeeded' ? 'success' : run.status === 'failed' ? 'danger' : 'info'} />{' '}
                        {moment(run.finishedOn ?? run.createdOn)} · {t('home.runs.counts', { matched: count.format(run.matched), partial: count.format(run.partial) })}
                        {failure && (
                          <span className="home-run__error" data-testid={`home-run-${n}-error`}>
                            {failure}
                          </span>
                        )}
                      </span>
                    ) : (
                      <span className="muted">{t('home.runs.never')}</span>
                    )}
                  </div>
                );
              })}
            </Card>
          )}

          {f.ageing && (
            <Card title={t('home.ageing.title')} link={OPEN_ITEMS_PATH} linkLabel={t('home.openQueue')} testId="home-ageing">
              <p className="home-big" data-testid="home-ageing-open">
                {count.format(f.ageing.open)} <span className="muted">{t('home.ageing.open')}</span>
              </p>
              <ul className="home-list" data-testid="home-ageing-buckets">
                {f.ageing.buckets.map((b) => (
                  <li key={b.from}>
                    <Link to={openItemsLink(b)}>
                      {b.to === null ? t('home.ageing.over', { days: b.from - 1 }) : t('home.ageing.bucket', { from: b.from, to: b.to })}
                    </Link>
                    <span className="home-num">{count.format(b.count)}</span>
                  </li>
                ))}
                <li>
                  <Link to={openItemsLink('overdue')} className={f.ageing.overdue > 0 ? 'home-overdue' : undefined}>
                    {t('home.ageing.overdue')}
                  </Link>
                  <span className="home-num" data-testid="home-ageing-overdue">
                    {count.format(f.ageing.overdue)}
                  </span>
                </li>
              </ul>
            </Card>
          )}

          {f.tasks && (
            <Card title={t('home.tasks.title')} link={TASKS_PATH} linkLabel={t('home.openTasks')} testId="home-tasks">
              <p className="home-big" data-testid="home-tasks-open">
                {count.format(f.tasks.open)} <span className="muted">{t('home.tasks.open')}</span>
              </p>
              <ul className="home-list">
                {f.tasks.byStatus.map((s) => (
                  <li key={s.status}>
                    <Link to={TASKS_PATH}>{t(`home.tasks.status.${s.status}`)}</Link>
                    <span className="home-num">{count.format(s.count)}</span>
                  </li>
                ))}
              </ul>
              <h3 className="home-subtitle">{t('home.tasks.byAssignee')}</h3>
              <ul className="home-list" data-testid="home-tasks-assignees">
                {f.tasks.byAssignee.map((a) => (
                  <li key={a.userId ?? 'nobody'}>
                    <Link to={TASKS_PATH}>{a.userId != null ? a.name : t('home.tasks.nobody')}</Link>
                    <span className="home-num">{count.format(a.count)}</span>
                  </li>
                ))}
              </ul>
            </Card>
          )}

          {f.imports && (
            <Card title={t('home.imports.title')} link={IMPORTS_PATH} linkLabel={t('home.openImports')} testId="home-imports">
              {f.imports.length === 0 ? (
                <p className="muted">{t('home.imports.none')}</p>
              ) : (
                <ul className="home-list">
                  {f.imports.map((i: ImportFile) => (
                    <li key={i.importId} data-testid="home-import">
                      <Link to={extractionLogLink(i.kind, i.extractionLogId)} title={t('imports.extractionLog')}>
                        {i.fileName}
                      </Link>
                      <span>
                        <Tag value={t(`imports.phase.${i.status}`)} severity={i.status === 'succeeded' ? 'success' : i.status === 'failed' ? 'danger' : 'info'} />{' '}
                        <span className="muted">{moment(i.createdOn)}</span>
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </Card>
          )}

          {f.bank && (
            <Card title={t('home.bank.title')} link={REPORTS_PATH} linkLabel={t('home.openReports')} testId="home-bank">
              <div className="home-pair">
                <div>
                  <span className="muted">{t('home.bank.in')}</span>
                  <p className="home-big" data-testid="home-bank-in">
                    {usd(f.bank.in)}
                  </p>
                </div>
                <div>
                  <span className="muted">{t('home.bank.out')}</span>
                  <p className="home-big" data-testid="home-bank-out">
                    {usd(f.bank.out)}
                  </p>
                </div>
              </div>
              <ul className="home-list">
                {f.bank.byActor.map((b) => (
                  <li key={b.actor ?? '(none)'}>
                    {canOpenBookings ? <Link to={bankLink(b.actor, f.from, f.to)}>{b.actor ?? t('reports.noActor')}</Link> : (b.actor ?? t('reports.noActor'))}
                    <span className="home-num">
                      {formatAmount(b.in, locale)} / {formatAmount(b.out, locale)}
                    </span>
                  </li>
                ))}
              </ul>
            </Card>
          )}
        </div>
      )}
    </section>
  );
}

/** A card of figures; without a link (a screen the user may not open) its header is the title alone. */
function Card({ title, link, linkLabel, testId, wide, children }: { title: string; link?: string; linkLabel: string; testId: string; wide?: boolean; children: ReactNode }) {
  return (
    <article className={`card home-card${wide ? ' home-card--wide' : ''}`} data-testid={testId}>
      <header className="home-card__header">
        <h2 className="home-card__title">{title}</h2>
        {link && (
          <Link to={link} className="home-card__link" data-testid={`${testId}-link`}>
            {linkLabel} <i className="pi pi-arrow-right" aria-hidden="true" />
          </Link>
        )}
      </header>
      {children}
    </article>
  );
}

/**
 * The four-eyes approvals: for those who decide, how many requests wait (a link to the
 * Approvals screen); for everyone, their own recent requests, what each asked for and how it
 * ended (who decided, when, and why).
 */
function ApprovalsCard({ approvals, count, moment }: { approvals: HomeApprovals; count: Intl.NumberFormat; moment(iso: string | null | undefined): string }) {
  const { t } = useTranslation();
  const { waiting } = approvals;
  const mine = approvals.mine ?? [];
  return (
    <Card title={t('home.approvals.title')} link={waiting !== null ? APPROVALS_PATH : undefined} linkLabel={t('home.approvals.open')} testId="home-approvals">
      {waiting !== null && (
        <p className="home-approvals__waiting" data-testid="home-approvals-waiting">
          <Link to={APPROVALS_PATH} className={waiting > 0 ? 'home-overdue' : undefined}>
            {t('home.approvals.waiting', { count: waiting, formatted: count.format(waiting) })}
          </Link>
        </p>
      )}
      <h3 className="home-subtitle">{t('home.approvals.mine')}</h3>
      {mine.length === 0 ? (
        <p className="muted">{t('home.approvals.none')}</p>
      ) : (
        <ul className="home-list home-approvals__mine">
          {mine.map((r) => (
            <li key={r.id} data-testid="home-approval" data-status={r.status}>
              <span className="home-approval__what">{serverMessage({ code: r.whatCode, params: r.whatParams, text: r.what })}</span>
              <span className="home-approval__outcome">
                <Tag value={t(`approvals.status.${r.status}`)} severity={APPROVAL_SEVERITY[r.status] ?? 'info'} data-testid="home-approval-status" />
                <span className="muted">
                  {r.decidedOn ? t('home.approvals.decided', { by: r.decidedBy ?? '', on: moment(r.decidedOn) }) : t('home.approvals.requested', { on: moment(r.requestedOn) })}
                </span>
              </span>
              {r.decisionReason && <span className="muted home-approval__reason">{r.decisionReason}</span>}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function LevelCard({
  level,
  name,
  tab,
  from,
  to,
  count,
  locale,
  usd,
}: {
  level: LevelFigures;
  /** The level's name, and its tab on the reconcile screen. */
  name: string;
  tab: number;
  from: string;
  to: string;
  count: Intl.NumberFormat;
  locale: string;
  usd(v: string): string;
}) {
  const { t } = useTranslation();
  const rows: [string, LevelFigures['matched']][] = [
    ['matched', level.matched],
    ['partial', level.partial],
    ['unmatched', level.unmatched],
  ];
  return (
    <Card title={name} link={reconcileLink(tab, from, to)} linkLabel={t('home.openReconcile')} testId={`home-level-${level.level}`}>
      <p className="home-big" data-testid={`home-level-${level.level}-rate`}>
        {level.matchRate === null ? '–' : `${formatDecimal(level.matchRate, 1, locale)} %`} <span className="muted">{t('home.matchRate')}</span>
      </p>
      <table className="home-table">
        <tbody>
          {rows.map(([status, a]) => (
            <tr key={status} className={`home-status home-status--${status}`}>
              <th scope="row">{t(`home.status.${status}`)}</th>
              <td className="home-num" data-testid={`home-level-${level.level}-${status}-count`}>
                {count.format(a.count)}
              </td>
              <td className="home-num">{usd(a.amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {level.noRate > 0 && <p className="muted home-note">{t('home.noRate', { count: level.noRate, formatted: count.format(level.noRate) })}</p>}
    </Card>
  );
}
