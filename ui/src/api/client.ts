/**
 * The one way the UI talks to the server. Every answer is the envelope
 * {succeeded, data, error}; callers get `data` or an Error carrying the server's message,
 * so screens never look at envelopes or status codes themselves.
 */
import { getAppConfig } from '../config/appConfig';
import { clearSession, getToken } from '../auth/session';
import { requestFinished, requestStarted } from './pending';
import { redirectToLogin } from '../auth/redirect';

export const GENERIC_ERROR = 'An error occurred';

export class ApiError extends Error {
  readonly status: number;
  /** The form field a 400/409 answer blames (the envelope's `field`), so forms can mark it. */
  readonly field?: string;
  /** The stable message code of the answer (e.g. tasks.stale) and its parameters, to translate it. */
  code?: string;
  params?: Record<string, unknown>;

  constructor(message: string, status: number, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    if (field) this.field = field;
  }
}

/** An ApiError carrying the envelope's message code and parameters, when it has them. */
function envelopeError(parsed: unknown, status: number): ApiError {
  const field = isEnvelope(parsed) && typeof parsed.field === 'string' ? parsed.field : undefined;
  const err = new ApiError(errorMessage(parsed), status, field);
  if (isEnvelope(parsed)) {
    if (typeof parsed.code === 'string') err.code = parsed.code;
    if (parsed.params && typeof parsed.params === 'object') err.params = parsed.params;
  }
  return err;
}

interface Envelope<T> {
  succeeded: boolean;
  data?: T;
  error?: string;
  message?: string;
  field?: string;
  code?: string;
  params?: Record<string, unknown>;
}

function isEnvelope(body: unknown): body is Envelope<unknown> {
  return typeof body === 'object' && body !== null && 'succeeded' in body;
}

function errorMessage(body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const { error, message } = body as { error?: unknown; message?: unknown };
    if (typeof error === 'string' && error !== '') return error;
    if (typeof message === 'string' && message !== '') return message;
  }
  return GENERIC_ERROR;
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function parseText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(response: Response): Promise<unknown> {
  return parseText(await response.text());
}

/** How a request behaves beyond its method, path and body. */
export interface RequestOptions {
  /**
   * Leave the global "Please wait" loader alone: grid pages load while someone types a
   * filter, and a screen-wide overlay would fight the typing; the grid shows its own bar.
   */
  quiet?: boolean;
}

function requestHeaders(body: unknown): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return headers;
}

/**
 * Sends one request with the token and turns every failure into an ApiError with the
 * server's message (a 401 first ends the session). The caller reads the body it expects.
 */
async function send(method: string, path: string, body: unknown): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(joinUrl(getAppConfig().apiBase, path), {
      method,
      headers: requestHeaders(body),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(GENERIC_ERROR, 0);
  }
  if (response.status === 401) {
    const parsed = await readBody(response);
    clearSession();
    redirectToLogin();
    throw new ApiError(errorMessage(parsed), 401);
  }
  if (!response.ok) {
    throw envelopeError(await readBody(response), response.status);
  }
  return response;
}

export async function apiRequest<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  if (!opts.quiet) requestStarted();
  try {
    const response = await send(method, path, body);
    const parsed = await readBody(response);
    if (isEnvelope(parsed) && !parsed.succeeded) {
      throw envelopeError(parsed, response.status);
    }
    // Tolerate a bare body (e.g. 204 No Content) as well as the envelope.
    return (isEnvelope(parsed) ? parsed.data : parsed) as T;
  } finally {
    if (!opts.quiet) requestFinished();
  }
}

/**
 * A file from the API (exports): the same token and error handling as every call, with the
 * body as a blob and the file name from Content-Disposition.
 */
export async function apiDownload(path: string, body: unknown, method = 'POST'): Promise<{ blob: Blob; disposition: string | null }> {
  requestStarted();
  try {
    const response = await send(method, path, body);
    return { blob: await response.blob(), disposition: response.headers.get('Content-Disposition') };
  } finally {
    requestFinished();
  }
}

/** How an upload reports and ends beyond its answer. */
export interface UploadOptions {
  /** Called with the share of the body sent so far, 0 to 1. */
  onProgress?: (fraction: number) => void;
}

/**
 * A multipart upload (file imports): the same token, 401 and envelope handling as every call,
 * through XMLHttpRequest because fetch cannot report upload progress. Quiet: the caller shows
 * its own progress, so the global loader does not cover the screen for a long upload.
 */
export function apiUpload<T>(path: string, form: FormData, opts: UploadOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', joinUrl(getAppConfig().apiBase, path));
    xhr.setRequestHeader('Accept', 'application/json');
    const token = getToken();
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    const { onProgress } = opts;
    if (onProgress) {
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable && event.total > 0) onProgress(Math.min(1, event.loaded / event.total));
      };
    }
    xhr.onerror = () => reject(new ApiError(GENERIC_ERROR, 0));
    xhr.onabort = () => reject(new ApiError(GENERIC_ERROR, 0));
    xhr.onload = () => {
      const parsed = parseText(xhr.responseText);
      const field = isEnvelope(parsed) && typeof parsed.field === 'string' ? parsed.field : undefined;
      if (xhr.status === 401) {
        clearSession();
        redirectToLogin();
        reject(new ApiError(errorMessage(parsed), 401));
        return;
      }
      if (xhr.status < 200 || xhr.status >= 300 || (isEnvelope(parsed) && !parsed.succeeded)) {
        reject(new ApiError(errorMessage(parsed), xhr.status, field));
        return;
      }
      resolve((isEnvelope(parsed) ? parsed.data : parsed) as T);
    };
    xhr.send(form);
  });
}

export const api = {
  get: <T>(path: string) => apiRequest<T>('GET', path),
  post: <T>(path: string, body?: unknown) => apiRequest<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => apiRequest<T>('PUT', path, body ?? {}),
  delete: <T>(path: string) => apiRequest<T>('DELETE', path),
  /** Without the global loader (see RequestOptions.quiet). */
  getQuiet: <T>(path: string) => apiRequest<T>('GET', path, undefined, { quiet: true }),
  postQuiet: <T>(path: string, body?: unknown) => apiRequest<T>('POST', path, body ?? {}, { quiet: true }),
};
