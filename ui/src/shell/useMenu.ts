/**
 * The metadata screens the user's roles grant (GET /api/meta/screens), read once per session
 * and shared by the sidebar, the dashboard's start and the metadata screens' guard; and the
 * whole menu built from them.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { api } from '../api/client';
import { sessionVersion, subscribeSession } from '../auth/session';
import { buildMenu, type MenuEntry, type MenuScreen } from './menu';

export interface GrantedScreen extends MenuScreen {
  screen: number;
}

let cache: { version: number; list: Promise<GrantedScreen[] | null> } | null = null;

/** The granted metadata screens of the current session; null when the list could not be read. */
export function loadMetadataScreens(): Promise<GrantedScreen[] | null> {
  const version = sessionVersion();
  if (cache?.version !== version) {
    const list = api.getQuiet<unknown>('/meta/screens').then(
      (l) => (Array.isArray(l) ? (l as GrantedScreen[]) : null),
      () => null,
    );
    cache = { version, list };
    // A failed read is tried again by the next caller.
    void list.then((l) => {
      if (l === null && cache?.list === list) cache = null;
    });
  }
  return cache.list;
}

/** The granted metadata screens: undefined while loading, null when they could not be read. */
export function useMetadataScreens(): GrantedScreen[] | null | undefined {
  const version = useSyncExternalStore(subscribeSession, sessionVersion);
  const [state, setState] = useState<{ version: number; list: GrantedScreen[] | null } | undefined>(undefined);
  useEffect(() => {
    let alive = true;
    void loadMetadataScreens().then((list) => alive && setState({ version, list }));
    return () => {
      alive = false;
    };
  }, [version]);
  return state?.version === version ? state.list : undefined;
}

/** The whole menu (hand-written entries only while the metadata screens load or fail). */
export function useMenu(): { menu: MenuEntry[]; loaded: boolean } {
  const screens = useMetadataScreens();
  const menu = useMemo(() => buildMenu(screens ?? []), [screens]);
  return { menu, loaded: screens !== undefined };
}
