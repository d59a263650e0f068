/**
 * An engine grid's preferences on the server (gridPrefs.ts): read once when the grid mounts,
 * written a moment after each change (as the task table does), and written at once when the
 * grid goes away with a change not yet sent. A save the server refuses (a user's limit of keys
 * or bytes) is a toast; the grid goes on with the layout on screen.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, apiRequest } from '../../api/client';
import { useToast } from '../../shell/toast';
import type { ViewMeta } from '../types';
import { defaultLayout, type ColumnLayout } from './columnLayout';
import { EMPTY_PREFS, layoutColumns, prefsKey, sanitizeGridPrefs, storedPrefs, type FilterSet, type GridPrefs } from './gridPrefs';

/** A change is written this long after the last one (a resize sends many). */
export const PREFS_SAVE_MS = 400;

/**
 * loading: not read yet (the grid waits, so that it does not show one layout and then another);
 * ready: read, or nothing stored; unsaved: the read failed, so nothing is written (a passing
 * failure must not overwrite what is stored with the defaults).
 */
type Status = 'loading' | 'ready' | 'unsaved';

interface State {
  key: string;
  status: Status;
  prefs: GridPrefs;
}

export interface GridPrefsController {
  ready: boolean;
  /** The layout on screen: the user's, else the view's default. */
  layout: ColumnLayout;
  /** The user has a layout of their own (Reset layout has something to do). */
  customLayout: boolean;
  filterSets: FilterSet[];
  changeLayout(change: (layout: ColumnLayout) => ColumnLayout): void;
  resetLayout(): void;
  changeFilterSets(change: (sets: FilterSet[]) => FilterSet[]): void;
}

const bodyOf = (prefs: GridPrefs) => JSON.stringify(storedPrefs(prefs));

export function useGridPrefs(view: ViewMeta): GridPrefsController {
  const { t } = useTranslation();
  const toast = useToast();
  const key = prefsKey(view.name);
  const columns = useMemo(() => layoutColumns(view), [view]);
  const [state, setState] = useState<State>({ key, status: 'loading', prefs: EMPTY_PREFS });
  // Another view in the same grid: its own preferences (React's adjust-state-while-rendering).
  if (state.key !== key) setState({ key, status: 'loading', prefs: EMPTY_PREFS });
  const current = state.key === key ? state : { key, status: 'loading' as const, prefs: EMPTY_PREFS };

  /** What the server holds (as last read or written), to write only what changed. */
  const stored = useRef('');
  /** A change waiting for its moment: written at once if the grid goes away first. */
  const pending = useRef<{ key: string; body: string } | null>(null);
  const told = useRef(false);
  const say = useRef({ t, toast });
  say.current = { t, toast };
  const shownKey = useRef(key);
  shownKey.current = key;
  // The metadata as read when the preferences arrive (a new object for the same view reads nothing again).
  const viewNow = useRef(view);
  viewNow.current = view;

  const save = useCallback((target: { key: string; body: string }) => {
    apiRequest<void>('PUT', `/preferences/${target.key}`, JSON.parse(target.body), { quiet: true })
      .then(() => {
        if (shownKey.current === target.key) stored.current = target.body;
      })
      .catch((err: unknown) => {
        const { t: tr, toast: show } = say.current;
        show.error(err instanceof ApiError && err.message ? err.message : tr('errors.generic'), tr('grid.prefs.saveFailed'));
      });
  }, []);

  useEffect(() => {
    let live = true;
    told.current = false;
    api
      .getQuiet<unknown>(`/preferences/${key}`)
      .then((answer) => {
        if (!live) return;
        const prefs = sanitizeGridPrefs(answer, viewNow.current);
        stored.current = bodyOf(prefs);
        setState((s) => (s.key === key ? { key, status: 'ready', prefs } : s));
      })
      .catch((err: unknown) => {
        if (!live) return;
        // Nothing stored yet may also read as 404.
        const none = err instanceof ApiError && err.status === 404;
        stored.current = bodyOf(EMPTY_PREFS);
        setState((s) => (s.key === key ? { key, status: none ? 'ready' : 'unsaved', prefs: EMPTY_PREFS } : s));
      });
    return () => {
      live = false;
      // Leaving this view (or the screen): a change not yet written is written now.
      const waiting = pending.current;
      if (waiting?.key === key) {
        pending.current = null;
        save(waiting);
      }
    };
  }, [key, save]);

  useEffect(() => {
    if (current.status === 'loading') return undefined;
    const body = bodyOf(current.prefs);
    if (body === stored.current) return undefined;
    if (current.status === 'unsaved') {
      if (!told.current) {
        told.current = true;
        say.current.toast.error(say.current.t('grid.prefs.unavailable'), say.current.t('grid.prefs.saveFailed'));
      }
      return undefined;
    }
    const target = { key: current.key, body };
    pending.current = target;
    const timer = setTimeout(() => {
      if (pending.current === target) pending.current = null;
      save(target);
    }, PREFS_SAVE_MS);
    return () => clearTimeout(timer);
  }, [current.prefs, current.status, current.key, save]);

  const update = useCallback((change: (p: GridPrefs) => GridPrefs) => setState((s) => (s.status === 'loading' ? s : { ...s, prefs: change(s.prefs) })), []);
  const layout = useMemo(() => current.prefs.layout ?? defaultLayout(columns), [current.prefs.layout, columns]);

  return {
    ready: current.status !== 'loading',
    layout,
    customLayout: current.prefs.layout !== null,
    filterSets: current.prefs.filterSets,
    changeLayout: useCallback(
      (change) =>
        update((p) => {
          const base = p.layout ?? defaultLayout(columns);
          const next = change(base);
          return next === base ? p : { ...p, layout: next };
        }),
      [update, columns],
    ),
    resetLayout: useCallback(() => update((p) => (p.layout === null ? p : { ...p, layout: null })), [update]),
    changeFilterSets: useCallback((change) => update((p) => ({ ...p, filterSets: change(p.filterSets) })), [update]),
  };
}
