/**
 * Data hooks for the metadata (screens, views, forms): each returns the descriptor once it
 * has loaded, or the server's message when it cannot be loaded (403, unknown name).
 */
import { useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import { engineApi } from './api';
import type { FormMeta, ScreenMeta, ViewMeta } from './types';

interface MetaState<T> {
  data: T | null;
  error: string | null;
  /** The HTTP status of a failed load (403: the roles do not grant the screen). */
  status?: number;
}

function useMeta<T>(key: string | null, load: (key: string) => Promise<T>): MetaState<T> {
  const [state, setState] = useState<MetaState<T> & { key: string | null }>({ key: null, data: null, error: null });
  useEffect(() => {
    if (!key) return undefined;
    let alive = true;
    load(key).then(
      (data) => alive && setState({ key, data, error: null }),
      (err: unknown) =>
        alive &&
        setState({ key, data: null, error: err instanceof Error ? err.message : String(err), status: err instanceof ApiError ? err.status : undefined }),
    );
    return () => {
      alive = false;
    };
  }, [key, load]);
  // A changed key shows nothing until its own descriptor arrives.
  return state.key === key ? state : { data: null, error: null };
}

export function useScreenMeta(route: string) {
  const { data, error, status } = useMeta<ScreenMeta>(route, engineApi.screen);
  return { screen: data, error, status };
}

export function useViewMeta(name: string) {
  const { data, error } = useMeta<ViewMeta>(name, engineApi.view);
  return { view: data, error };
}

export function useFormMeta(name: string | null) {
  const { data, error } = useMeta<FormMeta>(name, engineApi.form);
  return { form: data, error };
}
