/**
 * A whole screen from the metadata (views.yaml `screens:`): its title and one tab per grid,
 * each a GridView with the tab's add dialog or route, row delete and action buttons. The tab
 * the user last had open on this screen comes back for the rest of the browser session.
 *
 * Links can open a tab and show given rows: `?tab=<tab id>&<Field>=<value>` (e.g. the Data
 * Import screen's link to one extraction-log row, `?tab=ticketFiles&Id=42`); `Field=from..to`
 * on a date or number column is a range and an empty `Field=` means no value (the bank
 * overview's link to one period and actor, `?tab=bankFiles&BookedDate=2026-01-01..2026-01-31&Actor=Card`);
 * the grid shows a chip that clears the field values.
 */
import { useMemo, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { TabView, TabPanel } from 'primereact/tabview';
import { ProgressBar } from 'primereact/progressbar';
import { GridView } from './GridView';
import { useScreenMeta } from './useMeta';
import { clearMetaCache } from './api';
import type { ScreenMeta, TabMeta } from './types';
import './engine.css';

export const TAB_STORAGE_PREFIX = 'ledgerdesk.screenTab.';

function storedTab(route: string): string | null {
  try {
    return sessionStorage.getItem(TAB_STORAGE_PREFIX + route);
  } catch {
    return null;
  }
}

function storeTab(route: string, tabId: string): void {
  try {
    sessionStorage.setItem(TAB_STORAGE_PREFIX + route, tabId);
  } catch {
    // storage full or blocked: the tab is just not remembered
  }
}

export interface MetadataScreenProps {
  /** The route under dashboard/ that names the screen in the metadata, e.g. "bank-settings". */
  route: string;
  /** Shown while the metadata loads (the route table's title key). */
  titleKey?: string;
}

export function MetadataScreen({ route, titleKey }: MetadataScreenProps) {
  const { t } = useTranslation();
  // Once per visit (the routes key this component by screen): fresh metadata.
  useState(() => clearMetaCache());
  const { screen, error, status } = useScreenMeta(route);
  const location = useLocation();
  const title = screen ? t(screen.title) : titleKey ? t(titleKey) : '';

  // The server decides who may open a screen; without the grant, the same
  // Access Denied screen as the route guard.
  if (status === 403) {
    return <Navigate to={`/dashboard/unauthorized?returnUrl=${encodeURIComponent(location.pathname)}`} replace />;
  }

  return (
    <section className="screen metadata-screen" data-testid={`screen-${route}`}>
      <header className="screen__header">
        <h1 className="screen__title" data-testid="screen-title">
          {title}
        </h1>
      </header>
      {error && (
        <div className="card grid-message grid-message--error" data-testid="screen-error">
          {error}
        </div>
      )}
      {!screen && !error && <ProgressBar mode="indeterminate" className="grid-progress" />}
      {screen && <ScreenTabs key={route} screen={screen} />}
    </section>
  );
}

/** The link's field values (every query parameter but tab), or undefined without any. */
function linkedValues(search: string): Record<string, string> | undefined {
  const params = new URLSearchParams(search);
  params.delete('tab');
  const out = Object.fromEntries(params.entries());
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One tab's grid, the same with or without a tab strip around it. */
function TabGrid({ tab, linked, onClearLinked }: { tab: TabMeta; linked?: Record<string, string>; onClearLinked?(): void }) {
  const { t } = useTranslation();
  return (
    <GridView
      title={t(tab.title, { defaultValue: tab.title })}
      linked={linked}
      onClearLinked={onClearLinked}
      viewName={tab.view}
      addForm={tab.add}
      addText={tab.addText}
      deleteForm={tab.delete}
      deleteRoute={tab.deleteRoute}
      addRoute={tab.addRoute}
      editRoute={tab.editRoute}
      actions={tab.actions}
      height={tab.height}
    />
  );
}

function ScreenTabs({ screen }: { screen: ScreenMeta }) {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const only = screen.tabs.length === 1 && !screen.showTabs ? screen.tabs[0] : undefined;
  const linkedTab = new URLSearchParams(location.search).get('tab');
  const [active, setActive] = useState(() => {
    const index = screen.tabs.findIndex((tab) => tab.id === (linkedTab ?? storedTab(screen.route)));
    if (linkedTab && index >= 0) storeTab(screen.route, linkedTab);
    return index >= 0 ? index : 0;
  });
  // The link's values filter the tab it opened (or the one tab), until cleared.
  const linked = useMemo(() => linkedValues(location.search), [location.search]);
  const linkedTabIndex = linkedTab ? screen.tabs.findIndex((tab) => tab.id === linkedTab) : 0;
  const clearLinked = () => navigate(location.pathname, { replace: true });
  const linkFor = (index: number) => (linked && index === Math.max(linkedTabIndex, 0) ? linked : undefined);

  // A one-grid screen (the user and role lists) needs no tab strip, unless it asks for one.
  if (only) {
    return (
      <div className="card metadata-screen__card">
        <TabGrid tab={only} linked={linked} onClearLinked={clearLinked} />
      </div>
    );
  }

  return (
    <div className="card metadata-screen__card">
      <TabView
        activeIndex={active}
        onTabChange={(e) => {
          setActive(e.index);
          const tab = screen.tabs[e.index];
          if (tab) storeTab(screen.route, tab.id);
        }}
        className="metadata-tabs"
      >
        {screen.tabs.map((tab, index) => (
          <TabPanel key={tab.id} header={t(tab.title)} pt={{ headerAction: { 'data-testid': `tab-${tab.id}` } as object }}>
            <TabGrid tab={tab} linked={linkFor(index)} onClearLinked={clearLinked} />
          </TabPanel>
        ))}
      </TabView>
    </div>
  );
}

export default MetadataScreen;

/**
 * A screen described only in the metadata, opened at dashboard/:route (and at its old address,
 * dashboard/screens/:route).
 */
export function RoutedMetadataScreen() {
  const { route = '' } = useParams();
  return <MetadataScreen key={route} route={route} />;
}
