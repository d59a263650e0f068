/**
 * The bolt button's run (spec 03 sections 2.1 and 8): POST /recon/{level}/auto; a run that
 * outlasts the request (202) is polled until it ends. The level shows as running meanwhile, and
 * the spec's toasts report the end with the run's counts. A run already going (409) or failed
 * (503, or a polled run that ended failed) gives the server's reason in the reader's language:
 * a failed run's message code (errorCode, errorParams) rather than its English text.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../shell/toast';
import { ApiError } from '../../api/client';
import { errorText, reconApi, runErrorText, type AutoRun } from './recon';

export const POLL_MS = 2000;

export function useAutoReconcile(onFinished: (slug: string) => void) {
  const { t } = useTranslation();
  const toast = useToast();
  const [running, setRunning] = useState<Record<string, boolean>>({});
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
        const why = runErrorText(run, t);
        toast.error(why ? `${t('recon.toasts.autoFailed')} ${why}` : t('recon.toasts.autoFailed'));
      }
    },
    [t, toast],
  );

  const start = useCallback(
    async (slug: string) => {
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
        if (alive.current) toast.error(failureText(err, t));
      } finally {
        if (alive.current) setRunning((r) => ({ ...r, [slug]: false }));
      }
    },
    [onFinished, report, t, toast],
  );

  return { running, start };
}

/**
 * Why the run could not be started or ended failed: a failed run's refusal (recon.autoFailed)
 * names the run's own code in its params when it has one; any other refusal speaks for itself.
 */
function failureText(err: unknown, t: Parameters<typeof errorText>[1]): string {
  const params = err instanceof ApiError && err.code === 'recon.autoFailed' ? err.params : undefined;
  if (params && typeof params.errorCode === 'string' && params.errorCode !== '') {
    const run = {
      runId: typeof params.runId === 'number' ? params.runId : undefined,
      error: typeof params.error === 'string' ? params.error : '',
      errorCode: params.errorCode,
      errorParams: typeof params.errorParams === 'object' && params.errorParams !== null ? (params.errorParams as Record<string, unknown>) : null,
    };
    return `${t('recon.toasts.autoFailed')} ${runErrorText(run, t)}`;
  }
  return errorText(err, t, 'recon.toasts.autoFailed');
}
