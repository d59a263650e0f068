import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, isPendingApproval, storedMessage } from './client';
import i18n from '../i18n';
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

describe('server messages in the reader language', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('translates the envelope code with its parameters, in the user date format', async () => {
    seedSession();
    const user = JSON.parse(localStorage.getItem('currentUser') ?? '{}') as Record<string, unknown>;
    localStorage.setItem('currentUser', JSON.stringify({ ...user, dateFormat: 'DD/MM/YYYY HH:mm:ss' }));
    await i18n.changeLanguage('sv');
    answer(409, {
      succeeded: false,
      error: 'This file was already imported on 2026-11-22 12:08 UTC as import #4 (bank.csv); ...',
      code: 'import.duplicate',
      params: { when: '2026-11-22T12:08:00Z', id: 4, file: 'bank.csv' },
    });
    const error = (await api.post('imports', {}).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('import.duplicate');
    expect(error.message).toContain('Filen importerades redan');
    expect(error.message).toContain('#4 (bank.csv)');
    expect(error.message).toMatch(/22\/11\/2026 \d\d:08/);
    expect(error.message).not.toContain('UTC');
    expect(error.text).toContain('already imported');
  });

  it('falls back to the English text for a code without a translation', async () => {
    await i18n.changeLanguage('es');
    answer(400, { succeeded: false, error: 'Something new went wrong.', code: 'brand.newCode' });
    await expect(api.get('x')).rejects.toThrow('Something new went wrong.');
  });

  it('keeps the precise English text of a bare error kind, led by its translation elsewhere', async () => {
    answer(400, { succeeded: false, error: 'Amount has 3 decimals.', code: 'error.invalid' });
    await expect(api.get('x')).rejects.toThrow(/^Amount has 3 decimals.$/);
    await i18n.changeLanguage('pt');
    answer(400, { succeeded: false, error: 'Amount has 3 decimals.', code: 'error.invalid' });
    await expect(api.get('x')).rejects.toThrow('Os dados não são válidos. (Amount has 3 decimals.)');
  });

  it('shows a stored text from its code and JSON parameters', async () => {
    await i18n.changeLanguage('es');
    expect(storedMessage('log.loaded', '{"file":"a.csv","read":3,"loaded":2}', 'a.csv: 3 rows read, 2 loaded')).toBe(
      'a.csv: 3 filas leídas, 2 cargadas',
    );
    expect(storedMessage(null, null, 'old text')).toBe('old text');
  });

  it('tells a write kept for approval (202, approvals.pending) from a failure, in the reader\'s language', async () => {
    const pending = {
      succeeded: false,
      error: 'Sent for approval (request 12): a second user with the Approvals screen must approve it before it is carried out.',
      code: 'approvals.pending',
      params: { id: 12, action: 'forcedMatch' },
    };
    answer(202, pending);
    const error = (await api.post('recon/ticket-transaction/match', {}).catch((e: unknown) => e)) as ApiError;
    expect(isPendingApproval(error)).toBe(true);
    expect(error.status).toBe(202);
    await i18n.changeLanguage('sv');
    answer(202, pending);
    const sv = (await api.post('recon/ticket-transaction/match', {}).catch((e: unknown) => e)) as ApiError;
    expect(sv.message).toContain('Skickad för godkännande (begäran 12)');
    // the same code with another status, or another refusal, is no pending approval
    answer(409, { ...pending, code: 'periods.closed', params: { month: '2026-10', closedBy: 'maria', closedOn: '2026-11-27' } });
    const closed = await api.post('x', {}).catch((e: unknown) => e);
    expect(isPendingApproval(closed)).toBe(false);
    expect((closed as ApiError).message).toBe('Perioden 2026-10 är stängd (av maria den 2026-11-27): inget som är daterat i den kan skrivas.');
    expect(isPendingApproval(new Error('x'))).toBe(false);
  });

  it('names a level in a closed-level refusal and a request\'s summary by their translations', async () => {
    answer(409, { succeeded: false, error: 'The period 2026-10 is closed for level 1 ...', code: 'periods.closedLevel', params: { month: '2026-10', level: 1, closedBy: 'maria', closedOn: '2026-11-27' } });
    await expect(api.post('x', {})).rejects.toThrow('The period 2026-10 is closed for Tickets vs Transactions (by maria on 2026-11-27)');
    expect(storedMessage('approvals.what.forcedMatch', '{"left":"1254400000001","right":"877","level":"ticket-transaction"}', 'English')).toBe(
      'Force a match of 1254400000001 with 877 (Tickets vs Transactions), outside the tolerances',
    );
    await i18n.changeLanguage('pt');
    expect(storedMessage('approvals.what.tolerance.update', '{"entity":"ConfigSettings","id":"4","change":"change"}', 'change ConfigSettings 4')).toBe(
      'Alterar a tolerância 4',
    );
  });
});
