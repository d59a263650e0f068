/**
 * The reconciliation dashboard, dashboard/bank-settlement (screen 13; spec 03 sections 2.1, 4,
 * 5, 8 and 9; issue 12): the filter area, three tabs of server-paged report grids coloured by
 * the views' rowStatus, the bolt button's automatic run and the Reconcile dialog per tab, the
 * details of a row with Create Task, undo of a match, and the chain of a record with why it did
 * not match.
 */
import { useCallback, useMemo, useRef, useState, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { TabView, TabPanel } from 'primereact/tabview';
import { Button } from 'primereact/button';
import { ContextMenu } from 'primereact/contextmenu';
import type { MenuItem } from 'primereact/menuitem';
import { ScreenHeader } from '../../components/ScreenHeader';
import { GridView } from '../../engine/GridView';
import { useToast } from '../../shell/toast';
import type { Row } from '../../engine/types';
import {
  defaultFilters,
  isTicketLookup,
  linkedFilters,
  loadSavedFilters,
  loadTabIndex,
  reportParams,
  saveFilters,
  saveTabIndex,
  validateFilters,
  FILTERS_KEY,
  type DashboardFilters,
  type FilterError,
  type TabIndex,
} from './filters';
import { FilterPanel } from './FilterPanel';
import { errorText, filterBody, LEVELS, reconApi, TICKET_LOOKUP_VIEW, type ChainRef, type LevelDef, type LevelSlug } from './recon';
import { useAutoReconcile } from './useAutoReconcile';
import { ManualReconcileDialog } from './ManualReconcileDialog';
import { DetailsDialog } from './DetailsDialog';
import { UndoMatchDialog, type UndoTarget } from './UndoMatchDialog';
import { CreateTaskFromDetails, type TaskLinks } from './CreateTaskFromDetails';
import { ChainPanel } from './ChainPanel';
import './bank-settlement.css';

interface RowAction {
  label: string;
  icon: string;
  run(): void;
}

function initialFilters(search: URLSearchParams): { filters: DashboardFilters; saved: boolean; tab: TabIndex | null } {
  const saved = loadSavedFilters(localStorage);
  const base = saved && !validateFilters(saved, 0) ? saved : defaultFilters(new Date());
  // A link (from the home screen's figures) says what to show; the panel stays closed on it.
  const linked = linkedFilters(search, base);
  if (linked) return { filters: linked.filters, saved: true, tab: linked.tab };
  return { filters: base, saved: base === saved, tab: null };
}

export default function BankSettlementScreen() {
  const { t } = useTranslation();
  const toast = useToast();
  const [search] = useSearchParams();
  // Read once, on opening: later changes of the filters are the user's.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const initial = useMemo(() => initialFilters(search), []);
  const [draft, setDraft] = useState<DashboardFilters>(initial.filters);
  const [applied, setApplied] = useState<DashboardFilters>(initial.filters);
  const [filtersOpen, setFiltersOpen] = useState(!initial.saved);
  const [filterError, setFilterError] = useState<FilterError | null>(null);
  const [tab, setTab] = useState<TabIndex>(() => initial.tab ?? loadTabIndex(localStorage));
  const [reload, setReload] = useState<Record<LevelSlug, number>>({ 'ticket-transaction': 0, 'transaction-settlement': 0, 'settlement-bank': 0 });
  const [manual, setManual] = useState<LevelDef | null>(null);
  const [details, setDetails] = useState<{ level: LevelDef; row: Row } | null>(null);
  const [undo, setUndo] = useState<UndoTarget | null>(null);
  const [task, setTask] = useState<TaskLinks | null>(null);
  const [chain, setChain] = useState<ChainRef | null>(null);
  const [undone, setUndone] = useState(0);
  const menu = useRef<ContextMenu>(null);
  const [menuItems, setMenuItems] = useState<MenuItem[]>([]);

  const reloadLevel = useCallback((slug: LevelSlug) => setReload((r) => ({ ...r, [slug]: r[slug] + 1 })), []);
  const reloadAll = useCallback(() => setReload((r) => ({ 'ticket-transaction': r['ticket-transaction'] + 1, 'transaction-settlement': r['transaction-settlement'] + 1, 'settlement-bank': r['settlement-bank'] + 1 })), []);
  const auto = useAutoReconcile(reloadLevel);

  const apply = () => {
    const problem = validateFilters(draft, tab);
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
    const next = (index === 1 || index === 2 ? index : 0) as TabIndex;
    setTab(next);
    saveTabIndex(localStorage, next);
  };

  const openChainOf = useCallback((kind: ChainRef['kind'], id: number) => setChain({ kind, id }), []);
  // A payout without a booking: its chain starts from one of its settlements (the report row
  // carries the payout's key, not its id).
  const openPayoutChain = async (payoutId: string) => {
    try {
      const records = await reconApi.details('settlement-bank', { PayoutID: payoutId });
      const first = records.item1[0];
      if (first?.id != null) openChainOf('settlement', Number(first.id));
      else toast.info(t('recon.menu.nothing'));
    } catch (err) {
      toast.error(errorText(err, t, 'recon.toasts.loadFailed'));
    }
  };
  // After an undo or a match made in a panel: every grid, the details and the chain read again.
  const afterUndo = useCallback(() => {
    reloadAll();
    setUndone((n) => n + 1);
  }, [reloadAll]);

  /** What a double-click or the context menu offers for a row of the level's grid. */
  const rowActions = (level: LevelDef, lookup: boolean, row: Row): RowAction[] => {
    const items: RowAction[] = [];
    if (!lookup && level.tab < 2) items.push({ label: t('recon.menu.details'), icon: 'pi pi-list', run: () => setDetails({ level, row }) });
    if (lookup && row.id != null) items.push({ label: t('recon.chain.open'), icon: 'pi pi-sitemap', run: () => openChainOf('ticket', Number(row.id)) });
    if (level.tab === 2 && row.BankId != null) items.push({ label: t('recon.chain.open'), icon: 'pi pi-sitemap', run: () => openChainOf('bank', Number(row.BankId)) });
    else if (level.tab === 2 && row.PayoutID != null) items.push({ label: t('recon.chain.open'), icon: 'pi pi-sitemap', run: () => void openPayoutChain(String(row.PayoutID)) });
    if (row.MatchId != null) {
      const what = lookup ? `${t('recon.kinds.ticket')} ${String(row.TicketNumber)}` : `${t('recon.kinds.payout')} ${String(row.PayoutID)}`;
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
      <ScreenHeader title={t('RECON.BANKSETTLEMENT')} actions={<Legend />} />
      <FilterPanel open={filtersOpen} onToggle={() => setFiltersOpen((o) => !o)} draft={draft} onChange={setDraft} tab={tab} error={filterError} onApply={apply} onClear={clear} />

      <TabView activeIndex={tab} onTabChange={(e) => chooseTab(e.index)} className="recon-tabs" data-testid="recon-tabs">
        {LEVELS.map((level) => {
          const lookup = isTicketLookup(applied, level.tab);
          const params = reportParams(applied, level.tab);
          const busy = !!auto.running[level.slug];
          return (
            <TabPanel
              key={level.slug}
              header={
                <span className="recon-tab" data-testid={`recon-tab-${level.tab}`}>
                  {t(level.title)}
                  {busy && (
                    <span className="recon-tab__running" data-testid={`recon-tab-running-${level.tab}`}>
                      <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('recon.dashboard.reconciling')}
                    </span>
                  )}
                </span>
              }
            >
              <GridView
                key={lookup ? TICKET_LOOKUP_VIEW : level.view}
                viewName={lookup ? TICKET_LOOKUP_VIEW : level.view}
                params={params}
                reloadToken={reload[level.slug]}
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
                      data-testid={`recon-auto-${level.tab}`}
                    />
                    <Button type="button" size="small" outlined icon="pi pi-arrows-h" label={t('recon.dashboard.reconcile')} onClick={() => setManual(level)} data-testid={`recon-manual-${level.tab}`} />
                    {lookup && <span className="recon-lookup-note" data-testid="recon-lookup-note">{t('recon.dashboard.lookup', { ticket: applied.clientUniqueId })}</span>}
                  </>
                }
              />
              <p className="muted recon-hint">{t(level.tab === 2 ? 'recon.dashboard.hintBank' : 'recon.dashboard.hint')}</p>
            </TabPanel>
          );
        })}
      </TabView>

      <ContextMenu model={menuItems} ref={menu} data-testid="recon-row-menu" />
      {manual && (
        <ManualReconcileDialog
          level={manual}
          filters={filterBody(applied, reportParams(applied, manual.tab))}
          visible
          onClose={() => setManual(null)}
          onReconciled={() => reloadLevel(manual.slug)}
        />
      )}
      {details && (
        <DetailsDialog level={details.level} row={details.row} reloadToken={undone} onClose={() => setDetails(null)} onChain={openChainOf} onUndo={setUndo} onCreateTask={setTask} />
      )}
      <CreateTaskFromDetails links={task} onClose={() => setTask(null)} />
      <UndoMatchDialog target={undo} onClose={() => setUndo(null)} onUndone={afterUndo} />
      <ChainPanel start={chain} reloadToken={undone} onClose={() => setChain(null)} onUndo={setUndo} onMatched={afterUndo} />
    </section>
  );
}

/** The colour legend: each colour with its icon and word (readable without colour). */
function Legend() {
  const { t } = useTranslation();
  return (
    <ul className="recon-legend" data-testid="recon-legend" aria-label={t('recon.dashboard.legend')}>
      {(
        [
          ['success', 'pi-check-circle', 'matched'],
          ['warning', 'pi-exclamation-circle', 'partial'],
          ['danger', 'pi-times-circle', 'unmatched'],
        ] as const
      ).map(([severity, icon, key]) => (
        <li key={key} className={`recon-legend__item recon-legend__item--${severity} grid-row-status grid-row-status--${severity}`}>
          <i className={`pi ${icon}`} aria-hidden="true" />
          {t(`recon.status.${key}`)}
        </li>
      ))}
    </ul>
  );
}
