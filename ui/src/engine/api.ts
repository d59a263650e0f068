/**
 * The engine's server calls: metadata, grid pages, inline edits, exports, form resources and
 * screen actions. Everything goes through the shared api client (token, envelope, 401, global
 * loader); only the export reads a file instead of JSON, with the same token and loader.
 */
import { api, ApiError, GENERIC_ERROR } from '../api/client';
import { requestFinished, requestStarted } from '../api/pending';
import { getAppConfig } from '../config/appConfig';
import { clearSession, getToken } from '../auth/session';
import { redirectToLogin } from '../auth/redirect';
import type { ExportFormat, FormMeta, GridPage, GridRequest, Row, ScreenMeta, ViewMeta } from './types';

const enc = encodeURIComponent;

/**
 * Metadata changes only with a deployment, so each descriptor is fetched once per page load
 * and shared by every grid and dialog that asks for it (a failed fetch is not kept).
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

/** Tests start each case with an empty cache. */
export function clearMetaCache(): void {
  metaCache.clear();
}

export const engineApi = {
  screen: (route: string) => cachedGet<ScreenMeta>(`/meta/screens/${enc(route)}`),
  view: (name: string) => cachedGet<ViewMeta>(`/meta/views/${enc(name)}`),
  form: (name: string) => cachedGet<FormMeta>(`/meta/forms/${enc(name)}`),

  /** Quiet: a grid shows its own loading state instead of covering the screen on every page. */
  page: (request: GridRequest) => quietPost<GridPage>('/grid', request),
  saveRow: (body: { ViewName: string; Key: unknown; Values: Row; Version?: unknown }) => api.put<Row>('/grid/row', body),

  create: (resource: string, record: Row) => api.post<Row>(`/${resource}`, record),
  remove: (resource: string, key: unknown) => api.delete<unknown>(`/${resource}/${enc(String(key))}`),
  lookup: <T>(path: string) => api.get<T[]>(path),
  action: (method: string, path: string) => apiAction(method, path),
};

function apiAction(method: string, path: string): Promise<unknown> {
  switch (method.toUpperCase()) {
    case 'GET':
      return api.get(path);
    case 'PUT':
      return api.put(path, {});
    case 'DELETE':
      return api.delete(path);
    default:
      return api.post(path, {});
  }
}

function apiUrl(path: string): string {
  return `${getAppConfig().apiBase.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function authHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

async function failure(response: Response): Promise<ApiError> {
  if (response.status === 401) {
    clearSession();
    redirectToLogin();
  }
  let message = GENERIC_ERROR;
  let field: string | undefined;
  try {
    const body = (await response.json()) as { error?: string; message?: string; field?: string };
    message = body.error || body.message || GENERIC_ERROR;
    field = body.field;
  } catch {
    // not JSON: keep the generic text
  }
  return new ApiError(message, response.status, field);
}

/**
 * A POST like api.post (token, envelope, 401) that does not raise the global loader: grid
 * pages load while the user types a filter, and a screen-wide overlay would fight the typing.
 */
async function quietPost<T>(path: string, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { method: 'POST', headers: authHeaders(), body: JSON.stringify(body) });
  } catch {
    throw new ApiError(GENERIC_ERROR, 0);
  }
  if (!response.ok) throw await failure(response);
  const envelope = (await response.json()) as { succeeded?: boolean; data?: T; error?: string };
  if (envelope.succeeded === false) throw new ApiError(envelope.error || GENERIC_ERROR, response.status);
  return envelope.data as T;
}

export interface ExportRequest extends Omit<GridRequest, 'PageSize' | 'PageNumber'> {
  Format: ExportFormat;
  Columns: Array<{ field: string; header: string }>;
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
 * Asks the server for the export and saves it through an object URL, so the bearer token
 * travels in a header (a plain link could not carry it).
 */
export async function downloadExport(request: ExportRequest, fallbackName: string): Promise<string> {
  requestStarted();
  try {
    let response: Response;
    try {
      response = await fetch(apiUrl('/grid/export'), { method: 'POST', headers: authHeaders(), body: JSON.stringify(request) });
    } catch {
      throw new ApiError(GENERIC_ERROR, 0);
    }
    if (!response.ok) throw await failure(response);
    const blob = await response.blob();
    const name = dispositionFileName(response.headers.get('Content-Disposition')) ?? fallbackName;
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
    return name;
  } finally {
    requestFinished();
  }
}
