/**
 * Pure helpers of the Data Import screen: sizes, row-error lines, and where an import's
 * extraction-log row lives (the metadata screen dashboard/extraction-logs and its tab).
 */
import { serverMessage } from '../../api/client';
import type { ImportKind, RowError, RowNote } from '../../api/imports';

/** The extraction-logs metadata screen keeps its open tab here (engine/MetadataScreen). */
export const EXTRACTION_LOGS_TAB_KEY = 'ledgerdesk.screenTab.extraction-logs';
export const EXTRACTION_LOGS_PATH = '/dashboard/extraction-logs';

/** The tab of the extraction-logs screen that lists a kind's files. */
export function extractionLogTab(kind: ImportKind): string | null {
  switch (kind) {
    case 'bank':
      return 'bankFiles';
    case 'settlement':
      return 'settlementFiles';
    case 'transaction':
      return 'transactionFiles';
    case 'ticket':
      return 'ticketFiles';
    default:
      return null;
  }
}

/** The link to an import's extraction-log row: its kind's tab, showing that row when the id is known. */
export function extractionLogLink(kind: ImportKind, logId?: number | null): string {
  const params = new URLSearchParams();
  const tab = extractionLogTab(kind);
  if (tab) params.set('tab', tab);
  if (logId != null) params.set('Id', String(logId));
  const query = params.toString();
  return query ? `${EXTRACTION_LOGS_PATH}?${query}` : EXTRACTION_LOGS_PATH;
}

/** Makes the extraction-logs screen open on the kind's tab (call right before navigating). */
export function selectExtractionLogTab(kind: ImportKind): void {
  const tab = extractionLogTab(kind);
  if (!tab) return;
  try {
    sessionStorage.setItem(EXTRACTION_LOGS_TAB_KEY, tab);
  } catch {
    // storage blocked: the screen opens on its remembered or first tab
  }
}

/** 1536 -> "1.5 KB", in the UI language's number format. */
export function formatBytes(bytes: number, locale: string): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

export function formatCount(value: number | null | undefined, locale: string): string {
  return value === null || value === undefined ? '' : new Intl.NumberFormat(locale).format(value);
}

/** How many row errors the screen lists; the rest are counted. */
export const ROW_ERROR_LIMIT = 100;

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** "line 2, column 1 (TicketNumber): ..." with the parts the server gave. */
export function rowErrorText(error: RowError, t: Translate): string {
  const parts = [t('imports.rowError.line', { line: error.line })];
  if (error.column) parts.push(t('imports.rowError.column', { column: error.column }));
  let where = parts.join(', ');
  if (error.field) where += ` (${error.field})`;
  // The server's message, in the reader's language when it has a code, may start with the
  // field name the line already shows.
  const text = serverMessage({ code: error.code, params: error.params, text: error.message });
  const message = error.field && text.startsWith(`${error.field}: `) ? text.slice(error.field.length + 2) : text;
  return `${where}: ${message}`;
}

/** "line 4: already loaded by import 3 (a.sta)", the message in the UI language when it has a code. */
export function rowNoteText(note: RowNote, t: Translate): string {
  const text = serverMessage({ code: note.code, params: note.params, text: note.message });
  return note.line > 0 ? `${t('imports.rowError.line', { line: note.line })}: ${text}` : text;
}
