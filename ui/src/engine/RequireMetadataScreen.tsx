/**
 * The route guard of a metadata screen: the screen id is the one its metadata names
 * (views.yaml `screens.<route>.screen`), not a number repeated in the route table. The server
 * answers the screen's metadata only to roles granting that id; a 403 leads to Access Denied
 * like RequireScreen does.
 */
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { unauthorizedPath } from '../auth/guards';
import { getScreenIds } from '../auth/session';
import { useScreenMeta } from './useMeta';

export function RequireMetadataScreen({ route, children }: { route: string; children: ReactNode }) {
  const location = useLocation();
  const { screen, status } = useScreenMeta(route);
  const denied = status === 403 || (typeof screen?.screen === 'number' && !getScreenIds().includes(screen.screen));
  if (denied) return <Navigate to={unauthorizedPath(location.pathname + location.search)} replace />;
  // The screen renders at once (it loads the same, cached metadata and shows its own errors).
  return <>{children}</>;
}
