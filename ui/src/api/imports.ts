/**
 * Calls of the Data Import screen (DESIGN.md §4): file layouts, one multipart upload per
 * file, the import job's state while it runs, and the recent imports. All quiet: the screen
 * shows its own progress per file instead of the global loader.
 */
import { api, apiUpload } from './client';

export const IMPORT_KINDS = ['bank', 'transaction', 'settlement', 'ticket'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface ImportLayout {
  name: string;
  kind: ImportKind;
  format: string;
  description?: string;
}

export interface RowError {
  line: number;
  column?: number | null;
  field?: string | null;
  message: string;
  /** The message code of `message` and its parameters (serverMessages.<code>). */
  code?: string | null;
  params?: Record<string, unknown> | null;
}

/**
 * A row the import did not store (skipped: the same as an earlier line, already loaded by an
 * earlier import, a camt.053 entry that is not booked), a value read other than written, or a
 * warning that a bank statement does not follow on from the account's previous one.
 */
export interface RowNote {
  line: number;
  /** The row was not stored. */
  skipped?: boolean;
  message: string;
  /** The message code of `message` and its parameters (serverMessages.<code>). */
  code: string;
  params?: Record<string, unknown> | null;
}

export interface ImportFile {
  importId: number;
  kind: ImportKind;
  fileName: string;
  format?: string | null;
  layout?: string | null;
  status: ImportStatus;
  rowsRead?: number | null;
  rowsLoaded?: number | null;
  rowsOverlap?: number | null;
  error?: string | null;
  errorCode?: string | null;
  errorParams?: Record<string, unknown> | null;
  rowErrors?: RowError[] | null;
  /** The notes of a succeeded import, at most the first 1,000 of them. */
  rowNotes?: RowNote[] | null;
  /** How many notes the import has in all (the list may hold fewer). */
  noteCount?: number;
  extractionLogId?: number | null;
  createdOn?: string | null;
  createdBy?: string | null;
  startedOn?: string | null;
  finishedOn?: string | null;
}

export function isFinished(status: ImportStatus | undefined): boolean {
  return status === 'succeeded' || status === 'failed';
}

export const importsApi = {
  layouts: () => api.getQuiet<ImportLayout[] | null>('imports/layouts'),
  recent: () => api.getQuiet<ImportFile[] | null>('imports'),
  get: (id: number) => api.getQuiet<ImportFile>(`imports/${id}`),
  upload: (kind: ImportKind, file: File, layout: string | null, onProgress?: (fraction: number) => void) => {
    const form = new FormData();
    form.append('kind', kind);
    if (layout) form.append('layout', layout);
    form.append('file', file, file.name);
    return apiUpload<ImportFile>('imports', form, { onProgress });
  },
};
