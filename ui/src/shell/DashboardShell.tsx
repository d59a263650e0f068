import { Suspense, useState } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../auth/useSession';
import { Sidebar } from './Sidebar';
import { ScreenFallback } from './ScreenFallback';
import { useMetadataLabels } from '../i18n/metadataLabels';

export const MOBILE_BREAKPOINT = 768;

function isNarrow(): boolean {
  return typeof window !== 'undefined' && window.innerWidth <= MOBILE_BREAKPOINT;
}

export function DashboardShell() {
  const user = useCurrentUser();
  const { t } = useTranslation();
  const [sidebarOpen, setSidebarOpen] = useState(() => !isNarrow());
  const labelsReady = useMetadataLabels();

  // Signing out in another tab, or a 401, empties the session: leave the dashboard then.
  if (!user) return <Navigate to="/login" replace />;

  return (
    <div className={`dashboard${sidebarOpen ? ' has-sidebar' : ''}`}>
      <Sidebar open={sidebarOpen} onNavigate={() => isNarrow() && setSidebarOpen(false)} />
      {sidebarOpen && <div className="sidebar-backdrop" onClick={() => setSidebarOpen(false)} aria-hidden="true" />}
      <div className="dashboard__main">
        <header className="topbar">
          <button
            type="button"
            className="shell-icon-button"
            data-testid="sidebar-toggle"
            aria-label={t('shell.toggleMenu')}
            aria-expanded={sidebarOpen}
            onClick={() => setSidebarOpen((open) => !open)}
          >
            <i className="pi pi-bars" aria-hidden="true" />
          </button>
        </header>
        <main className="dashboard__content">
          {/* A screen waits for the metadata's labels rather than show their keys. */}
          {labelsReady ? (
            <Suspense fallback={<ScreenFallback />}>
              <Outlet />
            </Suspense>
          ) : (
            <ScreenFallback />
          )}
        </main>
      </div>
    </div>
  );
}
