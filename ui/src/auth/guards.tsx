/**
 * Route guards. The dashboard needs an unexpired token; a hand-written screen's route also
 * needs its screen's id (found by the route in the server's screen list, see ./screens)
 * among the screenIds granted at sign-in. The server checks the same ids on every call, so
 * these guards are about a clear screen, not about security.
 */
import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { isTokenValid } from './jwt';
import { clearSession, getScreenIds, getToken, sessionVersion, subscribeSession } from './session';
import { loginPathWithReturn } from './redirect';
import { firstPermittedPath } from '../shell/menu';
import { useMenu } from '../shell/useMenu';
import { pathGranted } from './screens';

export function RequireAuth({ children }: { children: ReactNode }) {
  const location = useLocation();
  useSyncExternalStore(subscribeSession, sessionVersion);
  const valid = isTokenValid(getToken());

  useEffect(() => {
    // An expired or undecodable token means the session is over: drop all of it.
    if (!valid) clearSession();
  }, [valid]);

  if (!valid) return <Navigate to={loginPathWithReturn(location.pathname + location.search)} replace />;
  return <>{children}</>;
}

export function unauthorizedPath(returnUrl: string): string {
  return `/dashboard/unauthorized?returnUrl=${encodeURIComponent(returnUrl)}`;
}

/** Opens `path` (a dashboard route) only if its screen is known and granted. */
export function RequireScreen({ path, children }: { path: string; children: ReactNode }) {
  const location = useLocation();
  useSyncExternalStore(subscribeSession, sessionVersion);
  if (!pathGranted(path, getScreenIds())) {
    return <Navigate to={unauthorizedPath(location.pathname + location.search)} replace />;
  }
  return <>{children}</>;
}

/**
 * The dashboard's start (and where unknown paths go): the first screen of the menu the roles
 * grant, once the metadata screens' entries are known (a role may hold only those).
 */
export function FirstScreen() {
  const location = useLocation();
  useSyncExternalStore(subscribeSession, sessionVersion);
  const { menu, loaded } = useMenu();
  if (!loaded) return null;
  // Keyed by the visit: opening #/dashboard again while the first screen's code still loads
  // reuses this element, and an unchanged Navigate would not navigate again.
  return <Navigate key={location.key} to={firstPermittedPath(menu, getScreenIds())} replace />;
}
