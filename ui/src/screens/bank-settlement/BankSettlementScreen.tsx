/**
 * The reconciliation dashboard, dashboard/bank-settlement (screen 13; spec 03 sections 2.1, 4,
 * 5, 8 and 9; issue 12): the filter area, a tab per level the server declares (recon.yaml, GET
 * /recon/levels) with its server-paged report grid coloured by the view's rowStatus and its
 * legend, the bolt button's automatic run and the Reconcile dialog per tab, the details of a row
 * with Create Task, undo of a match, and the chain of a record with why it did not match; a tab
 * whose dates lie in a closed month says who closed it and when. What a tab shows and offers
 * comes from its level; nothing here names a level.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { TabView, TabPanel } from 'primereact/tabview';
import { Button } from 'primereact/button';
import { ContextMenu } from 'primereact/contextmenu';
import { ProgressBar } from 'primereact/progressbar';
import type { MenuItem } from 'primereact/menuitem';
import { ScreenHeader } from '../../components/ScreenHeader';
import { ClosedPeriodsNote } from '../../components/ClosedPeriodsNote';
import { closedOverlapping, useClosedPeriods } from '../../api/periods';
import { GridView } from '../../engine/GridView';
import { SEVERITY_ICON } from '../../engine/grid/rowStatus';
import { useToast } from '../../shell/toast';
import type { Row } from '../../engine/types';
import {
  ALL_FILTERS,
  clampTab,
  defaultFilters,
  isTicketLookup,
  linkedFilters,
  loadSavedFilters,
  loadTabIndex,
  reportParams,
  saveFilters,
  saveTabIndex,
  validateFilters,
  visibleFilters,
  FILTERS_KEY,
  type DashboardFilters,
  type FilterError,
} from './filters';
import { FilterPanel } from './FilterPanel';
import { filterBody, kindLabel, type ChainStart, type LevelDef, type LevelStatus } from './recon';
import { clearLevelsCache, useReconLevels } from './useReconLevels';
import { useAutoReconcile } from './useAutoReconcile';
import { ManualReconcileDialog } from './ManualReconcileDialog';
import { DetailsDialog, detailsOf } from './DetailsDialog';
import { UndoMatchDialog, type UndoTarget } from './UndoMatchDialog';
import { CreateTaskFromDetails, type TaskLinks } from './CreateTaskFromDetails';
import { ChainPanel } from './ChainPanel';
import './bank-settlement.css';

interface RowAction {
  label: string;
  icon: string;
  run(): void;
}

function initialFilters(search: URLSearchParams): { filters: DashboardFilters; saved: boolean; tab: number | null } {
  const saved = loadSavedFilters(localStorage);
  const base = saved && !validateFilters(saved, ALL_FILTERS) ? saved : defaultFilters(new Date());
  // A link (from the home screen's figures) says what to show; the panel stays closed on it.
  const linked = linkedFilters(search, base);
  if (linked) return { filters: linked.filters, saved: true, tab: linked.tab };
  return { filters: base, saved: base === saved, tab: null };
}

/** The chain a link asks to open (?chain=<kind>:<id>, as the exception queue's rows link), or null. */
export function linkedChain(search: URLSearchParams): ChainStart | null {
  const m = /^([a-z][a-z_]*):(\d+)$/.exec(search.get('chain') ?? '');
  return m ? { kind: m[1] ?? '', id: Number(m[2]) } : null;
}

/** The fields that name a record to people, for the undo question; else its id. */
const REFERENCE_FIELDS = ['TicketNumber', 'ClientUniqueID', 'PayoutID', 'BankAccount'];

function referenceOf(row: Row): string {
  const field = REFERENCE_FIELDS.find((f) => row[f] !== null && row[f] !== undefined && row[f] !== '');
  return field ? String(row[field]) : `#${String(row.id ?? row.MatchId)}`;
}

/** Where a report row's chain starts: the first of the level's chainFrom fields the row carries. */
export function chainStartOf(level: LevelDef, row: Row): ChainStart | null {
  for (const from of level.chainFrom) {
    const value = row[from.field];
    if (value === null || value === undefined || value === '') continue;
    if (from.by === 'id') {
      const id = Number(value);
      if (Number.isFinite(id)) return { kind: from.side, id };
    } else {
      return { kind: from.side, ref: String(value) };
    }
  }
  return null;
}

export default function BankSettlementScreen() {
  const { t } = useTranslation();
  const toast = useToast();
  const [search] = useSearchParams();
  // Opening the screen reads the levels again, as it does the views' metadata.
  useState(() => clearLevelsCache());
  const { levels, error: levelsError } = useReconLevels();
  // Read once, on opening: later changes of the filters are the user's.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const initial = useMemo(() => initialFilters(search), []);
  const [draft, setDraft] = useState<DashboardFilters>(initial.filters);
  const [applied, setApplied] = useState<DashboardFilters>(initial.filters);
  const [filtersOpen, setFiltersOpen] = useState(!initial.saved);
  const [filterError, setFilterError] = useState<FilterError | null>(null);
  const [tab, setTab] = useState<number>(() => initial.tab ?? loadTabIndex(localStorage));
  // Reload tokens per level slug, and one for every level at once.
  const [reload, setReload] = useState<Record<string, number>>({});
  const [reloadEvery, setReloadEvery] = useState(0);
  const [manual, setManual] = useState<LevelDef | null>(null);
  const [details, setDetails] = useState<{ level: LevelDef; row: Row } | null>(null);
  const [undo, setUndo] = useState<UndoTarget | null>(null);
  const [task, setTask] = useState<TaskLinks | null>(null);
  const [chain, setChain] = useState<ChainStart | null>(() => linkedChain(search));
  const [undone, setUndone] = useState(0);
  const menu = useRef<ContextMenu>(null);
  const [menuItems, setMenuItems] = useState<MenuItem[]>([]);
  const periods = useClosedPeriods();

  // The saved or linked tab is an index into the levels: fitted to those there are.
  const active = levels && levels.length > 0 ? clampTab(tab, levels.length) : 0;
  const activeLevel = levels?.[active] ?? null;
  const shown = activeLevel ? visibleFilters(activeLevel) : ALL_FILTERS;

  useEffect(() => {
    if (levelsError) toast.error(levelsError);
  }, [levelsError, toast]);

  // A link followed while the screen is open (back and forward, a pasted link, another
  // figure of Home) says what to show as it did on opening; the screen writes no URL itself,
  // so a new one is always the user's.
  const searchText = search.toString();
  const opened = useRef(searchText);
  useEffect(() => {
    if (searchText === opened.current) return;
    opened.current = searchText;
    const next = initialFilters(new URLSearchParams(searchText));
    setDraft(next.filters);
    setApplied(next.filters);
    setFilterError(null);
    setFiltersOpen(!next.saved);
    if (next.tab !== null) setTab(next.tab);
    const linked = linkedChain(new URLSearchParams(searchText));
    if (linked) setChain(linked);
  }, [searchText]);

  const reloadLevel = useCallback((slug: string) => setReload((r) => ({ ...r, [slug]: (r[slug] ?? 0) + 1 })), []);
  const reloadAll = useCallback(() => setReloadEvery((n) => n + 1), []);
  const auto = useAutoReconcile(reloadLevel);

  const apply = () => {
    const problem = validateFilters(draft, shown);
    setFilterError(problem);
    if (problem) {
      toast.warn(t(`recon.errors.${problem.code}`), t('toast.warning'));
      return;
    }
    const next = { ...draft, clientUniqueId: draft.clientUniqueId.trim() };
    setApplied(next);
    saveFilters(localStorage, next);
    setFiltersOpen(false);
  };

  const clear = () => {
    const fresh = defaultFilters(new Date());
    setDraft(fresh);
    setApplied(fresh);
    setFilterError(null);
    localStorage.removeItem(FILTERS_KEY);
  };

  const chooseTab = (index: number) => {
    setTab(index);
    saveTabIndex(localStorage, index);
  };

  const openChain = useCallback((start: ChainStart) => setChain(start), []);
  // After an undo or a match made in a panel: every grid, the details and the chain read again.
  const afterUndo = useCallback(() => {
    reloadAll();
    setUndone((n) => n + 1);
  }, [reloadAll]);

  /** What an undo from a report row unmatches: the record its chain starts from, by kind and reference. */
  const undoSubject = (level: LevelDef, row: Row): string => {
    const byRef = level.chainFrom.find((f) => f.by === 'ref' && row[f.field] != null && row[f.field] !== '');
    if (byRef) return `${t(kindLabel([level], byRef.side))} ${String(row[byRef.field])}`;
    return `${t(level.name)} ${referenceOf(row)}`;
  };

  /** What a double-click or the context menu offers for a row of the level's grid. */
  const rowActions = (level: LevelDef, lookup: boolean, row: Row): RowAction[] => {
    const items: RowAction[] = [];
    const chainAction = (start: ChainStart) => ({ label: t('recon.chain.open'), icon: 'pi pi-sitemap', run: () => openChain(start) });
    if (lookup) {
      // A lookup row is a record of the level's left side (a ticket), by its id.
      if (row.id != null) items.push(chainAction({ kind: level.left.kind, id: Number(row.id) }));
    } else {
      if (detailsOf(level)) items.push({ label: t('recon.menu.details'), icon: 'pi pi-list', run: () => setDetails({ level, row }) });
      const start = chainStartOf(level, row);
      if (start) items.push(chainAction(start));
    }
    if (row.MatchId != null) {
      const what = lookup ? `${t(level.left.label)} ${referenceOf(row)}` : undoSubject(level, row);
      items.push({ label: t('recon.undo.title'), icon: 'pi pi-undo', run: () => setUndo({ slug: level.slug, matchId: Number(row.MatchId), what }) });
    }
    return items;
  };

  // A double-click does the row's first action: the details, else its chain.
  const onDoubleClick = (level: LevelDef, lookup: boolean) => (row: Row) => {
    const first = rowActions(level, lookup, row)[0];
    if (first) first.run();
    else toast.info(t('recon.menu.nothing'));
  };

  const onContextMenu = (level: LevelDef, lookup: boolean) => (row: Row, event: MouseEvent<HTMLDivElement>) => {
    const items = rowActions(level, lookup, row);
    if (!items.length) return;
    setMenuItems(items.map(({ label, icon, run }) => ({ label, icon, command: run })));
    menu.current?.show(event);
  };

  return (
    <section className="screen recon-screen" data-testid="bank-settlement">
      <ScreenHeader title={t('RECON.BANKSETTLEMENT')} actions={activeLevel ? <Legend statuses={activeLevel.statuses} /> : undefined} />
      {!levels && !levelsError && <ProgressBar mode="indeterminate" className="grid-progress" data-testid="recon-levels-loading" />}
      {levelsError && (
        <div className="grid-message grid-message--error" role="alert" data-testid="recon-levels-error">
          {levelsError}
        </div>
      )}
      {levels && (
        <FilterPanel open={filtersOpen} onToggle={() => setFiltersOpen((o) => !o)} draft={draft} onChange={setDraft} shown={shown} error={filterError} onApply={apply} onClear={clear} />
      )}

      {levels && (
        <TabView activeIndex={active} onTabChange={(e) => chooseTab(e.index)} className="recon-tabs" data-testid="recon-tabs">
          {levels.map((level, index) => {
            const lookup = isTicketLookup(applied, level);
            const view = lookup && level.lookupView ? level.lookupView : level.reportView;
            const busy = !!auto.running[level.slug];
            return (
              <TabPanel
                key={level.slug}
                header={
                  <span className="recon-tab" data-testid={`recon-tab-${index}`}>
                    {t(level.name)}
                    {busy && (
                      <span className="recon-tab__running" data-testid={`recon-tab-running-${index}`}>
                        <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('recon.dashboard.reconciling')}
                      </span>
                    )}
                  </span>
                }
              >
                <GridView
                  key={view}
                  viewName={view}
                  params={reportParams(applied, level)}
                  reloadToken={(reload[level.slug] ?? 0) + reloadEvery}
                  onRowDoubleClick={onDoubleClick(level, lookup)}
                  onRowContextMenu={onContextMenu(level, lookup)}
                  onLoadError={(message) => toast.error(message || t('recon.toasts.loadFailed'))}
                  toolbar={
                    <>
                      <Button
                        type="button"
                        size="small"
                        icon={busy ? 'pi pi-spin pi-spinner' : 'pi pi-bolt'}
                        label={t('recon.dashboard.auto')}
                        title={t('recon.dashboard.autoHint')}
                        disabled={busy}
                        onClick={() => void auto.start(level.slug)}
                        data-testid={`recon-auto-${index}`}
                      />
                      <Button type="button" size="small" outlined icon="pi pi-arrows-h" label={t('recon.dashboard.reconcile')} onClick={() => setManual(level)} data-testid={`recon-manual-${index}`} />
                      {lookup && <span className="recon-lookup-note" data-testid="recon-lookup-note">{t('recon.dashboard.lookup', { ticket: applied.clientUniqueId })}</span>}
                      <ClosedPeriodsNote periods={closedOverlapping(periods, applied.fromDate, applied.toDate, level.slug)} />
                    </>
                  }
                />
                {level.hint && <p className="muted recon-hint">{t(level.hint)}</p>}
              </TabPanel>
            );
          })}
        </TabView>
      )}

      <ContextMenu model={menuItems} ref={menu} data-testid="recon-row-menu" />
      {manual && (
        <ManualReconcileDialog
          level={manual}
          filters={filterBody(applied, reportParams(applied, manual))}
          visible
          onClose={() => setManual(null)}
          onReconciled={() => reloadLevel(manual.slug)}
        />
      )}
      {details && (
        <DetailsDialog level={details.level} row={details.row} reloadToken={undone} onClose={() => setDetails(null)} onChain={openChain} onUndo={setUndo} onCreateTask={setTask} />
      )}
      <CreateTaskFromDetails links={task} onClose={() => setTask(null)} />
      <UndoMatchDialog target={undo} onClose={() => setUndo(null)} onUndone={afterUndo} />
      <ChainPanel start={chain} levels={levels ?? []} reloadToken={undone} onClose={() => setChain(null)} onUndo={setUndo} onMatched={afterUndo} />
    </section>
  );
}

/** The colour legend of the active level's statuses: each colour with its icon and word (readable without colour). */
function Legend({ statuses }: { statuses: readonly LevelStatus[] }) {
  const { t } = useTranslation();
  // Several values may share a label and colour (e.g. two partial states): each is shown once.
  const shown = statuses.filter((s, i) => statuses.findIndex((o) => o.label === s.label && o.severity === s.severity) === i);
  if (!shown.length) return null;
  return (
    <ul className="recon-legend" data-testid="recon-legend" aria-label={t('recon.dashboard.legend')}>
      {shown.map((status) => (
        <li
          key={`${status.severity}-${status.label}`}
          className={`recon-legend__item recon-legend__item--${status.severity} grid-row-status grid-row-status--${status.severity}`}
          data-testid="recon-legend-item"
        >
          <i className={`pi ${SEVERITY_ICON[status.severity] ?? 'pi-circle'}`} aria-hidden="true" />
          {t(status.label, { defaultValue: status.label })}
        </li>
      ))}
    </ul>
  );
}
