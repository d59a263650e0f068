/**
 * The bolt button's run (spec 03 sections 2.1 and 8): POST /recon/{level}/auto; a run that
 * outlasts the request (202) is polled until it ends. The level shows as running meanwhile, and
 * the spec's toasts report the end with the run's counts. A run already going (409) or failed
 * (503) gives the server's reason in the reader's language.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../shell/toast';
import { errorText, reconApi, type AutoRun, type LevelSlug } from './recon';

export const POLL_MS = 2000;

export function useAutoReconcile(onFinished: (slug: LevelSlug) => void) {
  const { t } = useTranslation();
  const toast = useToast();
  const [running, setRunning] = useState<Partial<Record<LevelSlug, boolean>>>({});
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  const report = useCallback(
    (run: AutoRun) => {
      if (run.status === 'succeeded') {
        toast.success(`${t('recon.toasts.autoDone')} ${t('recon.toasts.autoCounts', { matched: run.matched, partial: run.partial, unmatched: run.unmatched })}`);
      } else {
        toast.error(run.error ? `${t('recon.toasts.autoFailed')} ${run.error}` : t('recon.toasts.autoFailed'));
      }
    },
    [t, toast],
  );

  const start = useCallback(
    async (slug: LevelSlug) => {
      setRunning((r) => ({ ...r, [slug]: true }));
      try {
        let run = await reconApi.auto(slug);
        while (alive.current && (run.status === 'queued' || run.status === 'running')) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          run = await reconApi.run(run.runId);
        }
        if (!alive.current) return;
        report(run);
        onFinished(slug);
      } catch (err) {
        if (alive.current) toast.error(errorText(err, t, 'recon.toasts.autoFailed'));
      } finally {
        if (alive.current) setRunning((r) => ({ ...r, [slug]: false }));
      }
    },
    [onFinished, report, t, toast],
  );

  return { running, start };
}
