import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { locationOf, makeJwt, renderAt } from '../../test/helpers';

const user = {
  userId: 3,
  username: 'lars',
  firstName: 'Lars',
  lastName: 'Nilsson',
  email: 'lars@example.com',
  mobileNumber: null,
  dateOfBirth: null,
  dateFormat: 'DD-MM-YYYY HH:mm:ss',
  languageCode: 'sv',
};

function success() {
  return { token: makeJwt(Math.floor(Date.now() / 1000) + 3600), expiresAt: '', user, screenIds: [1, 3], roles: [{ id: 2, roleName: 'Finance' }] };
}

function serverAnswers(...bodies: Array<[number, unknown]>) {
  const fetchMock = vi.fn();
  for (const [status, body] of bodies) {
    fetchMock.mockImplementationOnce(async () => new Response(JSON.stringify(body), { status }));
  }
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function fill(username: string, password: string) {
  fireEvent.change(screen.getByLabelText('Username'), { target: { value: username } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
}

afterEach(() => vi.unstubAllGlobals());

describe('sign-in screen', () => {
  it('keeps Sign in disabled until both fields are filled', async () => {
    renderAt('/login');
    const button = await screen.findByTestId('sign-in');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    fill('lars', '');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    fill('lars', 'secret');
    expect((button as HTMLButtonElement).disabled).toBe(false);
  });

  it('toggles the password visibility', async () => {
    renderAt('/login');
    const input = (await screen.findByLabelText('Password')) as HTMLInputElement;
    expect(input.type).toBe('password');
    fireEvent.click(screen.getByTestId('toggle-password'));
    expect(input.type).toBe('text');
  });

  it('stores the session, applies the language and goes to the return URL', async () => {
    const data = success();
    const fetchMock = serverAnswers([200, { succeeded: true, data }]);
    // After the sign-in the server answers the metadata screen's calls: its place in the list
    // of granted screens and its description (the title is a label, in Swedish).
    const users = { route: 'userslist', screen: 3, title: 'screens.userslist.title', tabs: [] };
    fetchMock.mockImplementation(async (url: string) => {
      const answer = (body: unknown) => new Response(JSON.stringify({ succeeded: true, data: body }), { status: 200 });
      if (url.endsWith('/api/meta/screens')) return answer([users]);
      if (url.endsWith('/api/meta/screens/userslist')) return answer(users);
      if (url.includes('/api/meta/labels/')) return answer({});
      return new Response(JSON.stringify({ succeeded: false, error: 'not found' }), { status: 404 });
    });
    const { router } = renderAt('/login?returnUrl=%2Fdashboard%2Fuserslist');
    await screen.findByTestId('login-form');
    fill('lars', 'Secret123');
    fireEvent.click(screen.getByTestId('sign-in'));

    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/userslist'));
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/auth/login');
    expect(JSON.parse(init.body as string)).toEqual({ username: 'lars', password: 'Secret123' });
    expect(localStorage.getItem('token')).toBe(data.token);
    expect(JSON.parse(localStorage.getItem('currentUser')!)).toMatchObject({ username: 'lars', token: data.token });
    expect(JSON.parse(localStorage.getItem('screenIds')!)).toEqual([1, 3]);
    expect(JSON.parse(localStorage.getItem('userRoles')!)).toEqual([{ id: 2, roleName: 'Finance' }]);
    expect(localStorage.getItem('defaultLang')).toBe('"sv"');
    // The list screen loads lazily; the sign-in form stays up until it is ready.
    await waitFor(() => expect(screen.getByTestId('screen-title').textContent).toBe('Användarlista'));
  });

  it("shows the server's error message", async () => {
    serverAnswers([401, { succeeded: false, error: 'Invalid username or password' }]);
    const { router } = renderAt('/login');
    await screen.findByTestId('login-form');
    fill('lars', 'wrong');
    fireEvent.click(screen.getByTestId('sign-in'));
    expect((await screen.findByTestId('login-error')).textContent).toContain('Invalid username or password');
    expect(locationOf(router)).toBe('/login');
  });

  it('asks for the second factor and verifies the code', async () => {
    const fetchMock = serverAnswers(
      [200, { succeeded: true, data: { twoFactorRequired: true, challengeId: 'c-1', channel: 'mobile' } }],
      [200, { succeeded: true, data: success() }],
    );
    const { router } = renderAt('/login');
    await screen.findByTestId('login-form');
    fill('lars', 'Secret123');
    fireEvent.click(screen.getByTestId('sign-in'));

    expect(await screen.findByText('Enter the 6-digit code sent to your phone')).toBeTruthy();
    const verify = screen.getByRole('button', { name: 'Verify' }) as HTMLButtonElement;
    fireEvent.change(screen.getByLabelText('Verification code'), { target: { value: '12a34' } });
    expect(verify.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Verification code'), { target: { value: '123456' } });
    fireEvent.click(verify);

    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/home'));
    const [url, init] = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(url).toBe('/api/auth/login/verify');
    expect(JSON.parse(init.body as string)).toEqual({ challengeId: 'c-1', code: '123456' });
  });

  it('lands a role without Home on the first screen it grants', async () => {
    serverAnswers([200, { succeeded: true, data: { ...success(), screenIds: [2, 12] } }]);
    const { router } = renderAt('/login');
    await screen.findByTestId('login-form');
    fill('lars', 'Secret123');
    fireEvent.click(screen.getByTestId('sign-in'));
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/financialdocument'));
  });
});
