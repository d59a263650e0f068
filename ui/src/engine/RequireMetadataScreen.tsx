/**
 * The route guard of a metadata screen: the screen id is the one its metadata names
 * (views.yaml `screens.<route>.screen`), not a number repeated in the route table. The
 * metadata screens the user's roles grant come quietly from the server (the list the sidebar
 * reads too); a screen not among them, or whose id the session lacks, leads to Access Denied
 * like RequireScreen does, before the screen asks for anything.
 */
import { type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { ProgressBar } from 'primereact/progressbar';
import { FirstScreen, unauthorizedPath } from '../auth/guards';
import { screenForPath } from '../auth/screens';
import { getScreenIds } from '../auth/session';
import { useMetadataScreens } from '../shell/useMenu';

export function RequireMetadataScreen({ route, children }: { route: string; children: ReactNode }) {
  const location = useLocation();
  // undefined: loading; null: the list could not be read (the screen then shows its own error).
  const granted = useMetadataScreens();
  if (granted === undefined) return <ProgressBar mode="indeterminate" className="grid-progress" />;
  if (granted !== null) {
    const meta = granted.find((s) => s.route === route);
    // A path that is no screen at all leads to the dashboard's start, as any unknown path does.
    if (!meta && !screenForPath(`/dashboard/${route}`)) return <FirstScreen />;
    if (!meta || !getScreenIds().includes(meta.screen)) return <Navigate to={unauthorizedPath(location.pathname + location.search)} replace />;
  }
  return <>{children}</>;
}
