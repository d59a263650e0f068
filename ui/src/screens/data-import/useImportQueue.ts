/**
 * The uploads of the Data Import screen: one POST per file (at most two in flight), then a
 * quiet poll of the import job every second until it has succeeded or failed. Files over the
 * server's limit, or empty, are refused before anything is sent.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, serverMessage } from '../../api/client';
import { importsApi, isFinished, type ImportFile, type ImportKind } from '../../api/imports';
import { getAppConfig } from '../../config/appConfig';
import { formatBytes } from './importFormat';

export type UploadPhase = 'waiting' | 'uploading' | 'queued' | 'running' | 'succeeded' | 'failed' | 'refused' | 'duplicate';

export interface UploadEntry {
  key: number;
  fileName: string;
  size: number;
  kind: ImportKind;
  layout: string | null;
  phase: UploadPhase;
  /** Share of the file sent, 0 to 1, while uploading. */
  progress: number;
  /** The server's import job, once the upload is accepted. */
  result?: ImportFile;
  /** Why the file was refused or failed. */
  error?: string;
}

export type UploadOutcome = Pick<UploadEntry, 'fileName' | 'phase' | 'error' | 'result'>;

export interface ImportQueueOptions {
  /** Milliseconds between two polls of a running import. */
  pollMs: number;
  /** Uploads in flight at once. */
  parallel?: number;
  /** Called once per file when it has an outcome (succeeded, failed, refused, duplicate). */
  onOutcome?: (outcome: UploadOutcome) => void;
}

/** Network failures in a row that a poll tolerates before it gives the import up. */
const POLL_RETRIES = 10;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Job {
  key: number;
  file: File;
  kind: ImportKind;
  layout: string | null;
}

export function useImportQueue({ pollMs, parallel = 2, onOutcome }: ImportQueueOptions) {
  const { t, i18n } = useTranslation();
  const [entries, setEntries] = useState<UploadEntry[]>([]);
  const alive = useRef(true);
  const waiting = useRef<Job[]>([]);
  const active = useRef(0);
  const nextKey = useRef(1);
  const outcome = useRef(onOutcome);
  outcome.current = onOutcome;

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const update = useCallback((key: number, patch: Partial<UploadEntry>) => {
    if (!alive.current) return;
    setEntries((list) => list.map((entry) => (entry.key === key ? { ...entry, ...patch } : entry)));
  }, []);

  const finish = useCallback(
    (key: number, fileName: string, patch: Pick<UploadEntry, 'phase'> & Partial<UploadEntry>) => {
      if (!alive.current) return;
      update(key, patch);
      outcome.current?.({ fileName, phase: patch.phase, error: patch.error, result: patch.result });
    },
    [update],
  );

  const poll = useCallback(
    async (key: number, fileName: string, first: ImportFile) => {
      let current = first;
      let failures = 0;
      while (!isFinished(current.status)) {
        await sleep(pollMs);
        if (!alive.current) return;
        try {
          current = await importsApi.get(current.importId);
          failures = 0;
          update(key, { phase: current.status, result: current });
        } catch (err) {
          if (err instanceof ApiError && err.status === 0 && ++failures < POLL_RETRIES) continue;
          finish(key, fileName, { phase: 'failed', error: err instanceof Error ? err.message : String(err) });
          return;
        }
      }
      finish(key, fileName, {
        phase: current.status,
        result: current,
        error: current.error ? serverMessage({ code: current.errorCode, params: current.errorParams, text: current.error }) : undefined,
      });
    },
    [pollMs, update, finish],
  );

  const upload = useCallback(
    async (job: Job) => {
      const { key, file } = job;
      update(key, { phase: 'uploading', progress: 0 });
      let accepted: ImportFile;
      try {
        accepted = await importsApi.upload(job.kind, file, job.layout, (progress) => update(key, { progress }));
      } catch (err) {
        const status = err instanceof ApiError ? err.status : 0;
        let message = err instanceof Error ? err.message : String(err);
        const limit = getAppConfig().uploadMaxBytes;
        if (status === 413 && limit) {
          message = t('imports.tooLarge', { file: file.name, size: formatBytes(file.size, i18n.language), limit: formatBytes(limit, i18n.language) });
        }
        finish(key, file.name, { phase: status === 409 ? 'duplicate' : 'refused', error: message });
        return;
      }
      update(key, { phase: accepted.status, progress: 1, result: accepted });
      // The job runs on the server; the next upload may start while this one is polled.
      void poll(key, file.name, accepted);
    },
    [update, finish, poll, t, i18n],
  );

  const pump = useCallback(() => {
    while (active.current < parallel && waiting.current.length > 0) {
      const job = waiting.current.shift()!;
      active.current += 1;
      void upload(job).finally(() => {
        active.current -= 1;
        if (alive.current) pump();
      });
    }
  }, [parallel, upload]);

  /** Queues files of one kind (and layout, or null to detect it). */
  const add = useCallback(
    (files: File[], kind: ImportKind, layout: string | null) => {
      const limit = getAppConfig().uploadMaxBytes;
      const added: UploadEntry[] = [];
      const refused: UploadEntry[] = [];
      for (const file of files) {
        const entry: UploadEntry = { key: nextKey.current++, fileName: file.name, size: file.size, kind, layout, phase: 'waiting', progress: 0 };
        if (limit && file.size > limit) {
          entry.phase = 'refused';
          entry.error = t('imports.tooLarge', { file: file.name, size: formatBytes(file.size, i18n.language), limit: formatBytes(limit, i18n.language) });
          refused.push(entry);
        } else if (file.size === 0) {
          entry.phase = 'refused';
          entry.error = t('imports.emptyFile', { file: file.name });
          refused.push(entry);
        } else {
          waiting.current.push({ key: entry.key, file, kind, layout });
        }
        added.push(entry);
      }
      setEntries((list) => [...added, ...list]);
      refused.forEach((entry) => outcome.current?.({ fileName: entry.fileName, phase: entry.phase, error: entry.error }));
      pump();
    },
    [pump, t, i18n],
  );

  /** Drops the rows of files that are done. */
  const clearFinished = useCallback(() => {
    setEntries((list) => list.filter((entry) => !isDone(entry.phase)));
  }, []);

  return { entries, add, clearFinished };
}

export function isDone(phase: UploadPhase): boolean {
  return phase === 'succeeded' || phase === 'failed' || phase === 'refused' || phase === 'duplicate';
}
