import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { clearMetaCache } from '../engine/api';
import { fail, mockApi, ok } from '../test/apiMock';
import { CONFIG_STORAGE_KEY, getAppConfig } from '../config/appConfig';
import { locationOf, renderAt, seedSession } from '../test/helpers';

/** The metadata screens the server says the roles grant, with the roles list's id as its metadata names it. */
const granted = (rolesListId?: number) =>
  ok(rolesListId === undefined ? [] : [{ route: 'roleslist', screen: rolesListId, title: 'screens.rolesList.title', tabs: [] }]);

beforeEach(() => clearMetaCache());

describe('route guards', () => {
  it('sends a visitor without a token to login with the return URL', async () => {
    const { router } = renderAt('/dashboard/userslist');
    await waitFor(() => expect(locationOf(router)).toBe('/login?returnUrl=%2Fdashboard%2Fuserslist'));
    expect(await screen.findByTestId('login-form')).toBeTruthy();
  });

  it('clears an expired session and sends it to login', async () => {
    seedSession({ expired: true });
    const { router } = renderAt('/dashboard/home');
    await waitFor(() => expect(locationOf(router)).toBe('/login?returnUrl=%2Fdashboard%2Fhome'));
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('currentUser')).toBeNull();
  });

  it('sends a user without the screen id to Access Denied with the return URL', async () => {
    seedSession({ screenIds: [1] });
    const api = mockApi({ 'GET /api/meta/screens': granted(), 'GET /api/meta/screens/roleslist': fail(403, 'You do not have permission for this screen.') });
    const { router } = renderAt('/dashboard/roleslist');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Froleslist'));
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Access Denied');
    // Decided before the screen asks for its metadata: no 403 on the way.
    expect(api.callsTo('GET', '/api/meta/screens/roleslist')).toHaveLength(0);
  });

  it("takes a metadata screen's id from its metadata, not from the route table", async () => {
    seedSession({ screenIds: [1, 5] });
    mockApi({ 'GET /api/meta/screens': granted(9) });
    const { router } = renderAt('/dashboard/roleslist');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Froleslist'));
  });

  it('opens the screen when the screen id is granted', async () => {
    seedSession({ screenIds: [1, 5] });
    mockApi({ 'GET /api/meta/screens': granted(5), 'GET /api/meta/screens/roleslist': ok({ route: 'roleslist', screen: 5, title: 'screens.rolesList.title', tabs: [] }) });
    const { router } = renderAt('/dashboard/roleslist');
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Roles List');
    expect(locationOf(router)).toBe('/dashboard/roleslist');
  });

  it("denies a screen whose route the server's screen list lacks, even with every id granted", async () => {
    seedSession();
    const config = getAppConfig();
    localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify({ ...config, screens: config.screens.filter((s) => s.route !== 'dashboard/reports') }));
    const { router } = renderAt('/dashboard/reports');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Freports'));
  });

  it("takes a hand-written screen's id from the server's screen list", async () => {
    seedSession({ screenIds: [1] });
    const config = getAppConfig();
    // The server lists the reports route under the id the session holds: the guard opens it.
    const screens = config.screens.map((s) => (s.route === 'dashboard/reports' ? { ...s, id: 1 } : s.route === 'dashboard/home' ? { ...s, id: 99 } : s));
    localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify({ ...config, screens }));
    const { router } = renderAt('/dashboard/home');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Fhome'));
    await router.navigate('/dashboard/reports');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/reports'));
  });

  it('redirects the empty dashboard path to home', async () => {
    seedSession();
    const { router } = renderAt('/dashboard');
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Home');
    expect(locationOf(router)).toBe('/dashboard/home');
  });

  it('starts a role without Home on its first granted screen', async () => {
    seedSession({ screenIds: [9, 12] });
    const { router } = renderAt('/dashboard');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/extraction-logs'));
  });

  it('Go Back without history inside the app goes to the first granted screen', async () => {
    seedSession({ screenIds: [10] });
    const { router } = renderAt('/dashboard/roleslist');
    fireEvent.click(await screen.findByTestId('go-back'));
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/ras-settings'));
  });
});
