/**
 * The engine's server calls: metadata, grid pages, inline edits, exports, form resources and
 * screen actions. Everything goes through the shared api client (token, envelope, 401, global
 * loader); only the export reads a file instead of JSON, with the same token and loader.
 */
import { api, apiDownload } from '../api/client';
import type { ExportFormat, FormMeta, GridPage, GridRequest, Row, ScreenMeta, ViewMeta } from './types';

const enc = encodeURIComponent;

/**
 * Each descriptor is fetched once per visit to a screen and shared by every grid and dialog
 * on it (a failed fetch is not kept). Opening a screen clears the cache, so metadata edited
 * on the server (analysts edit views.yaml; the server reloads it) shows on the next navigation.
 */
const metaCache = new Map<string, Promise<unknown>>();

function cachedGet<T>(path: string): Promise<T> {
  let hit = metaCache.get(path) as Promise<T> | undefined;
  if (!hit) {
    hit = api.get<T>(path);
    metaCache.set(path, hit);
    hit.catch(() => metaCache.delete(path));
  }
  return hit;
}

/** A screen starts with an empty cache (and so does each test). */
export function clearMetaCache(): void {
  metaCache.clear();
}

export const engineApi = {
  screen: (route: string) => cachedGet<ScreenMeta>(`/meta/screens/${enc(route)}`),
  view: (name: string) => cachedGet<ViewMeta>(`/meta/views/${enc(name)}`),
  form: (name: string) => cachedGet<FormMeta>(`/meta/forms/${enc(name)}`),

  /** Quiet: a grid shows its own loading state instead of covering the screen on every page. */
  page: (request: GridRequest) => api.postQuiet<GridPage>('/grid', request),
  saveRow: (body: { ViewName: string; Key: unknown; Values: Row; Version?: unknown }) => api.put<Row>('/grid/row', body),

  create: (resource: string, record: Row) => api.post<Row>(`/${resource}`, record),
  remove: (resource: string, key: unknown) => api.delete<unknown>(`/${resource}/${enc(String(key))}`),
  lookup: <T>(path: string) => api.get<T[]>(path),
  action: (method: string, path: string, body: object = {}) => apiAction(method, path, body),
};

function apiAction(method: string, path: string, body: object): Promise<unknown> {
  switch (method.toUpperCase()) {
    case 'GET':
      return api.get(path);
    case 'PUT':
      return api.put(path, body);
    case 'DELETE':
      return api.delete(path);
    default:
      return api.post(path, body);
  }
}

export interface ExportRequest extends Omit<GridRequest, 'PageSize' | 'PageNumber'> {
  Format: ExportFormat;
  Columns: Array<{ field: string; header: string }>;
  /** The user's IANA time zone: datetimes are written in it. */
  TimeZone?: string;
}

/** The file name of a Content-Disposition header (RFC 6266 filename* first). */
export function dispositionFileName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
  return plain ? (plain[2] ?? plain[1] ?? '').trim() || null : null;
}

/**
 * Downloads an export (through an object URL, so the bearer token travels in a header); the answer says the file's name and, when the file holds only the first
 * rows of more (XLSX past its row limit), how many it holds.
 */
export async function downloadExport(request: ExportRequest, fallbackName: string): Promise<{ name: string; cutAt: number | null }> {
  const { blob, disposition, headers } = await apiDownload('/grid/export', request);
  const cut = Number(headers.get('X-Export-Cut-At') ?? '');
  const name = dispositionFileName(disposition) ?? fallbackName;
  saveBlob(blob, name);
  return { name, cutAt: cut > 0 ? cut : null };
}

/** Saves the file a POST to path answers (the name from Content-Disposition, else fallbackName). */
export async function downloadFile(path: string, body: unknown, fallbackName: string): Promise<string> {
  const { blob, disposition } = await apiDownload(path, body);
  const name = dispositionFileName(disposition) ?? fallbackName;
  saveBlob(blob, name);
  return name;
}

/** Saves a downloaded file under name through an object URL. */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoke later: revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(href), 30_000);
}
