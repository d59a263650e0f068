/**
 * Route guards. The dashboard needs an unexpired token; a route that carries a screen id
 * also needs that id among the screenIds granted at sign-in. The server checks the same
 * ids on every call, so these guards are about a clear screen, not about security.
 */
import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { isTokenValid } from './jwt';
import { clearSession, getScreenIds, getToken, sessionVersion, subscribeSession } from './session';
import { loginPathWithReturn } from './redirect';
import { firstPermittedPath } from '../shell/menu';

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

export function RequireScreen({ screenId, children }: { screenId: number; children: ReactNode }) {
  const location = useLocation();
  useSyncExternalStore(subscribeSession, sessionVersion);
  if (!getScreenIds().includes(screenId)) {
    return <Navigate to={unauthorizedPath(location.pathname + location.search)} replace />;
  }
  return <>{children}</>;
}

/** The dashboard's start (and where unknown paths go): the first screen the roles grant. */
export function FirstScreen() {
  useSyncExternalStore(subscribeSession, sessionVersion);
  return <Navigate to={firstPermittedPath(getScreenIds())} replace />;
}
