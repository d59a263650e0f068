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

  constructor(message: string, status: number, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    if (field) this.field = field;
  }
}

interface Envelope<T> {
  succeeded: boolean;
  data?: T;
  error?: string;
  message?: string;
  field?: string;
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

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export async function apiRequest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';

  requestStarted();
  try {
    let response: Response;
    try {
      response = await fetch(joinUrl(getAppConfig().apiBase, path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(GENERIC_ERROR, 0);
    }
    const parsed = await readBody(response);

    if (response.status === 401) {
      clearSession();
      redirectToLogin();
      throw new ApiError(errorMessage(parsed), 401);
    }
    if (!response.ok || (isEnvelope(parsed) && !parsed.succeeded)) {
      const field = isEnvelope(parsed) && typeof parsed.field === 'string' ? parsed.field : undefined;
      throw new ApiError(errorMessage(parsed), response.status, field);
    }
    // Tolerate a bare body (e.g. 204 No Content) as well as the envelope.
    return (isEnvelope(parsed) ? parsed.data : parsed) as T;
  } finally {
    requestFinished();
  }
}

export const api = {
  get: <T>(path: string) => apiRequest<T>('GET', path),
  post: <T>(path: string, body?: unknown) => apiRequest<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => apiRequest<T>('PUT', path, body ?? {}),
  delete: <T>(path: string) => apiRequest<T>('DELETE', path),
};
