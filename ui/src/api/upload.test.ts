import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiUpload, ApiError } from './client';
import { seedSession } from '../test/helpers';
import { CONFIG_STORAGE_KEY, FALLBACK_CONFIG } from '../config/appConfig';
import { SessionKeys } from '../auth/session';

/** A stand-in for XMLHttpRequest that answers `status`/`body` when sent. */
class FakeXhr {
  static last: FakeXhr | null = null;
  static reply: { status: number; body: string } = { status: 201, body: '' };
  method = '';
  url = '';
  headers: Record<string, string> = {};
  sent: unknown = null;
  status = 0;
  responseText = '';
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.sent = body;
    this.upload.onprogress?.({ lengthComputable: true, loaded: 50, total: 100 });
    this.upload.onprogress?.({ lengthComputable: true, loaded: 100, total: 100 });
    this.status = FakeXhr.reply.status;
    this.responseText = FakeXhr.reply.body;
    queueMicrotask(() => (this.status === 0 ? this.onerror?.() : this.onload?.()));
  }
}

beforeEach(() => {
  localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify({ ...FALLBACK_CONFIG, apiBase: '/api/' }));
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  window.location.hash = '#/dashboard/financialdocument';
});

afterEach(() => vi.unstubAllGlobals());

describe('apiUpload', () => {
  it('posts the form with the bearer token, reports progress and returns data', async () => {
    const token = seedSession();
    FakeXhr.reply = { status: 201, body: JSON.stringify({ succeeded: true, data: { importId: 4, status: 'queued' } }) };
    const form = new FormData();
    form.append('kind', 'bank');
    const progress: number[] = [];
    await expect(apiUpload('imports', form, { onProgress: (p) => progress.push(p) })).resolves.toEqual({ importId: 4, status: 'queued' });
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/imports');
    expect(xhr.headers.Authorization).toBe(`Bearer ${token}`);
    expect(xhr.headers['Content-Type']).toBeUndefined(); // the browser sets the multipart boundary
    expect(xhr.sent).toBe(form);
    expect(progress).toEqual([0.5, 1]);
  });

  it("rejects with the envelope's message, status and field", async () => {
    seedSession();
    FakeXhr.reply = { status: 409, body: JSON.stringify({ succeeded: false, error: 'a.csv was already imported', field: 'file' }) };
    const error = await apiUpload('imports', new FormData()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('a.csv was already imported');
    expect((error as ApiError).status).toBe(409);
    expect((error as ApiError).field).toBe('file');
  });

  it('a 413 without an envelope still rejects with its status; a network failure with status 0', async () => {
    FakeXhr.reply = { status: 413, body: 'Request Entity Too Large' };
    await expect(apiUpload('imports', new FormData())).rejects.toMatchObject({ status: 413 });
    FakeXhr.reply = { status: 0, body: '' };
    await expect(apiUpload('imports', new FormData())).rejects.toMatchObject({ status: 0 });
  });

  it('a 401 ends the session', async () => {
    seedSession();
    FakeXhr.reply = { status: 401, body: JSON.stringify({ succeeded: false, error: 'token expired' }) };
    await expect(apiUpload('imports', new FormData())).rejects.toMatchObject({ status: 401 });
    expect(localStorage.getItem(SessionKeys.token)).toBeNull();
  });
});
