/**
 * The metadata screens the user's roles grant (GET /api/meta/screens), read once per sign-in
 * (per token and granted screens; a language switch, which also changes the session, does
 * not read them again) and shared by the sidebar, the dashboard's start and the metadata
 * screens' guard; and the whole menu built from them.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { api } from '../api/client';
import { getScreenIds, getToken, subscribeSession } from '../auth/session';
import { buildMenu, type MenuEntry, type MenuScreen } from './menu';

export interface GrantedScreen extends MenuScreen {
  screen: number;
}

let cache: { token: string; list: Promise<GrantedScreen[] | null> } | null = null;

// Signing out forgets the list: the next sign-in reads it again, whoever it is.
subscribeSession(() => {
  if (!getToken()) cache = null;
});

/** Who is signed in with which grants: the list changes with these, not with a language switch. */
const currentToken = () => `${getToken() ?? ''}|${getScreenIds().join(',')}`;

/** The granted metadata screens of the current sign-in; null when the list could not be read. */
export function loadMetadataScreens(): Promise<GrantedScreen[] | null> {
  const token = currentToken();
  if (cache?.token !== token) {
    const list = api.getQuiet<unknown>('/meta/screens').then(
      (l) => (Array.isArray(l) ? (l as GrantedScreen[]) : null),
      () => null,
    );
    cache = { token, list };
    // A failed read is tried again by the next caller.
    void list.then((l) => {
      if (l === null && cache?.list === list) cache = null;
    });
  }
  return cache.list;
}

/** The granted metadata screens: undefined while loading, null when they could not be read. */
export function useMetadataScreens(): GrantedScreen[] | null | undefined {
  const token = useSyncExternalStore(subscribeSession, currentToken);
  const [state, setState] = useState<{ token: string; list: GrantedScreen[] | null } | undefined>(undefined);
  useEffect(() => {
    let alive = true;
    void loadMetadataScreens().then((list) => alive && setState({ token, list }));
    return () => {
      alive = false;
    };
  }, [token]);
  return state?.token === token ? state.list : undefined;
}

/** The whole menu (hand-written entries only while the metadata screens load or fail). */
export function useMenu(): { menu: MenuEntry[]; loaded: boolean } {
  const screens = useMetadataScreens();
  const menu = useMemo(() => buildMenu(screens ?? []), [screens]);
  return { menu, loaded: screens !== undefined };
}
