/**
 * The one way the UI talks to the server. Every answer is the envelope
 * {succeeded, data, error}; callers get `data` or an Error carrying the server's message,
 * so screens never look at envelopes or status codes themselves.
 */
import { getAppConfig } from '../config/appConfig';
import { clearSession, getToken } from '../auth/session';
import { requestFinished, requestStarted } from './pending';
import { redirectToLogin } from '../auth/redirect';
import { getCurrentUser } from '../auth/session';
import { formatDate } from '../lib/dates';
import i18n from '../i18n';

export const GENERIC_ERROR = 'An error occurred';

export type MessageParams = Record<string, unknown>;

/** A message the server sends (or stores): a stable code, its parameters and the English text. */
export interface ServerMessage {
  code?: string | null;
  params?: MessageParams | null;
  /** The English text: shown when the reader's language has no translation of the code. */
  text: string;
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Parameters as the reader expects them: timestamps in the user's own date format. */
function readerParams(params: MessageParams | null | undefined): MessageParams {
  const out: MessageParams = {};
  const format = getCurrentUser()?.dateFormat || 'DD-MM-YYYY HH:mm';
  for (const [name, value] of Object.entries(params ?? {})) {
    out[name] =
      typeof value === 'string' && ISO_DATETIME.test(value) ? formatDate(new Date(value), format.replace(/:ss$/, '')) : value;
  }
  return out;
}

/**
 * The one place a server message becomes text in the reader's language: the translation of
 * serverMessages.<code> with its parameters, else the English text the server sent. The codes
 * of a bare error kind (error.invalid, ...) say less than the server's English text, so in
 * English that text is shown, and in another language the kind's translation leads it.
 */
export function serverMessage({ code, params, text }: ServerMessage): string {
  if (!code || !i18n.isInitialized) return text;
  const key = `serverMessages.${code}`;
  if (!i18n.exists(key)) return text;
  if (code.startsWith('error.')) {
    if (text === '' || text === GENERIC_ERROR) return i18n.t(key);
    return i18n.resolvedLanguage === 'en' ? text : `${i18n.t(key)} (${text})`;
  }
  return i18n.t(key, { ...readerParams(params), defaultValue: text });
}

/**
 * A text stored with its code (extraction-log descriptions and errors): the parameters come
 * as JSON text; a row written before codes existed has none and shows its English text.
 */
export function storedMessage(code: unknown, paramsJson: unknown, text: string): string {
  if (typeof code !== 'string' || code === '') return text;
  let params: MessageParams | undefined;
  if (typeof paramsJson === 'string' && paramsJson !== '') {
    try {
      const parsed: unknown = JSON.parse(paramsJson);
      if (typeof parsed === 'object' && parsed !== null) params = parsed as MessageParams;
    } catch {
      return text;
    }
  }
  return serverMessage({ code, params, text });
}

export class ApiError extends Error {
  readonly status: number;
  /** The form field a 400/409 answer blames (the envelope's `field`), so forms can mark it. */
  readonly field?: string;
  /** The stable message code and its parameters (the envelope's `code` and `params`). */
  readonly code?: string;
  readonly params?: MessageParams;
  /** The server's English text; `message` is the same message in the reader's language. */
  readonly text: string;

  constructor(message: string, status: number, field?: string, code?: string, params?: MessageParams) {
    super(serverMessage({ code, params, text: message }));
    this.name = 'ApiError';
    this.status = status;
    this.text = message;
    if (field) this.field = field;
    if (code) this.code = code;
    if (params) this.params = params;
  }
}

/**
 * A write the server kept for a second user's approval (four-eyes): 202 with succeeded false
 * and code approvals.pending. Nothing failed and nothing more is for the requester to do, so
 * callers say so in an info toast (its message names the request) and go on as after success.
 */
export function isPendingApproval(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 202 && err.code === 'approvals.pending';
}

interface Envelope<T> {
  succeeded: boolean;
  data?: T;
  error?: string;
  message?: string;
  field?: string;
  code?: string;
  params?: MessageParams;
}

function isEnvelope(body: unknown): body is Envelope<unknown> {
  return typeof body === 'object' && body !== null && 'succeeded' in body;
}

/** The ApiError of a refusal: the envelope's message, field, code and parameters. */
function refusal(body: unknown, status: number): ApiError {
  if (!isEnvelope(body)) return new ApiError(errorMessage(body), status);
  const field = typeof body.field === 'string' ? body.field : undefined;
  const code = typeof body.code === 'string' ? body.code : undefined;
  const params = typeof body.params === 'object' && body.params !== null ? body.params : undefined;
  return new ApiError(errorMessage(body), status, field, code, params);
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
    throw refusal(parsed, 401);
  }
  if (!response.ok) throw refusal(await readBody(response), response.status);
  return response;
}

export async function apiRequest<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  if (!opts.quiet) requestStarted();
  try {
    const response = await send(method, path, body);
    const parsed = await readBody(response);
    if (isEnvelope(parsed) && !parsed.succeeded) throw refusal(parsed, response.status);
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
export async function apiDownload(path: string, body: unknown, method = 'POST'): Promise<{ blob: Blob; disposition: string | null; headers: Headers }> {
  requestStarted();
  try {
    const response = await send(method, path, body);
    return { blob: await response.blob(), disposition: response.headers.get('Content-Disposition'), headers: response.headers };
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
      if (xhr.status === 401) {
        clearSession();
        redirectToLogin();
        reject(refusal(parsed, 401));
        return;
      }
      if (xhr.status < 200 || xhr.status >= 300 || (isEnvelope(parsed) && !parsed.succeeded)) {
        reject(refusal(parsed, xhr.status));
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
