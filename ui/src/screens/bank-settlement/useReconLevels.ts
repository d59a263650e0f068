/**
 * The reconciliation levels as the server declares them (recon.yaml, GET /recon/levels): read
 * once and shared by the tabs, the dialogs and the chain. Opening the dashboard reads them
 * again (clearLevelsCache), so a level added on the server shows on the next visit; a failed
 * read is not kept.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText, normaliseLevel, reconApi, type LevelDef } from './recon';

let cache: Promise<LevelDef[]> | null = null;

export function loadLevels(): Promise<LevelDef[]> {
  if (!cache) {
    const pending = reconApi.levels().then((list) => (list ?? []).map(normaliseLevel));
    cache = pending;
    pending.catch(() => {
      if (cache === pending) cache = null;
    });
  }
  return cache;
}

export function clearLevelsCache(): void {
  cache = null;
}

/** The levels in tab order once read (null meanwhile), or the reason they could not be read. */
export function useReconLevels(): { levels: LevelDef[] | null; error: string | null } {
  const { t } = useTranslation();
  const [state, setState] = useState<{ levels: LevelDef[] | null; error: string | null }>({ levels: null, error: null });
  useEffect(() => {
    let alive = true;
    loadLevels().then(
      (levels) => alive && setState({ levels, error: null }),
      (err: unknown) => alive && setState({ levels: null, error: errorText(err, t, 'recon.toasts.loadFailed') }),
    );
    return () => {
      alive = false;
    };
  }, [t]);
  return state;
}
