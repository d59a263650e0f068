import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from './client';
import { seedSession } from '../test/helpers';
import { CONFIG_STORAGE_KEY, FALLBACK_CONFIG } from '../config/appConfig';

function answer(status: number, body?: unknown) {
  const fetchMock = vi.fn(async () => new Response(body === undefined ? null : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

beforeEach(() => {
  localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify({ ...FALLBACK_CONFIG, apiBase: '/api/' }));
  window.location.hash = '#/dashboard/userslist';
});

afterEach(() => vi.unstubAllGlobals());

describe('api client', () => {
  it('returns data of a succeeded envelope, with the bearer token and the configured base', async () => {
    const token = seedSession();
    const fetchMock = answer(200, { succeeded: true, data: { id: 7 } });
    await expect(api.post('users', { a: 1 })).resolves.toEqual({ id: 7 });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/users');
    expect((init.headers as Record<string, string>).Authorization).toBe(`Bearer ${token}`);
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect(init.body).toBe('{"a":1}');
  });

  it('sends no Authorization header without a token', async () => {
    const fetchMock = answer(200, { succeeded: true, data: null });
    await api.get('x');
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it("throws the envelope's error message", async () => {
    answer(400, { succeeded: false, error: 'Username is required' });
    await expect(api.post('users', {})).rejects.toThrow('Username is required');
  });

  it('carries the field a 400 or 409 blames', async () => {
    answer(409, { succeeded: false, error: 'Username "bo" is already taken.', field: 'username' });
    const error = await api.post('users', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, field: 'username', message: 'Username "bo" is already taken.' });
  });

  it('throws the error of a failed envelope even with status 200', async () => {
    answer(200, { succeeded: false, error: 'Role name exists' });
    await expect(api.get('roles')).rejects.toThrow('Role name exists');
  });

  it('falls back to message, then to a generic text', async () => {
    answer(500, { message: 'Boom' });
    await expect(api.get('x')).rejects.toThrow('Boom');
    answer(502);
    await expect(api.get('x')).rejects.toThrow('An error occurred');
  });

  it('on 401 clears the session and goes to login with the return URL', async () => {
    seedSession();
    localStorage.setItem('userRoles', '[]');
    localStorage.setItem('defaultLang', '"sv"');
    localStorage.setItem('jwt_token', 'x');
    answer(401, { succeeded: false, error: 'Token expired' });
    const error = await api.get('users').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    for (const key of ['token', 'currentUser', 'screenIds', 'userRoles', 'defaultLang', 'jwt_token']) {
      expect(localStorage.getItem(key)).toBeNull();
    }
    expect(window.location.hash).toBe('#/login?returnUrl=%2Fdashboard%2Fuserslist');
  });

  it('accepts an empty 204 answer', async () => {
    answer(204);
    await expect(api.post('auth/logout')).resolves.toBeUndefined();
  });
});
