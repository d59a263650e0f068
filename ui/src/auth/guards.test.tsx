import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { clearMetaCache } from '../engine/api';
import { fail, mockApi, ok } from '../test/apiMock';
import { grantedScreens } from '../test/metadataScreens';
import { CONFIG_STORAGE_KEY, getAppConfig } from '../config/appConfig';
import { locationOf, renderAt, seedSession } from '../test/helpers';
import { clearSession } from './session';

/** A list naming the roles list under another screen id than views.yaml's, to see whose id the guard checks. */
const rolesListAs = (screenId: number) => ok([{ route: 'roleslist', screen: screenId, title: 'screens.rolesList.title', tabs: [] }]);

/**
 * What the server answers every dashboard: the granted metadata screens, and the metadata's
 * labels (the test setup holds them already; the shell reads them once per page load).
 */
const SERVER = { 'GET /api/meta/screens': grantedScreens, 'GET /api/meta/labels/en': ok({}) };

beforeEach(() => {
  clearMetaCache();
  // Each test is a new session, so the metadata screens are read again (once per session).
  clearSession();
  mockApi(SERVER);
});

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

  // Before any test that shows Home: its code is then still loading when the start navigates to it.
  it("goes to the first screen again when the dashboard's start is opened before that screen showed", async () => {
    seedSession();
    const { router } = renderAt('/dashboard');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/home'));
    // The start is still what shows while Home's code loads; opening it again must not stay there.
    await router.navigate('/dashboard');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/home'));
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Home');
  });

  it('sends a user without the screen id to Access Denied with the return URL', async () => {
    seedSession({ screenIds: [1] });
    const api = mockApi({ ...SERVER, 'GET /api/meta/screens/roleslist': fail(403, 'You do not have permission for this screen.') });
    const { router } = renderAt('/dashboard/roleslist');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Froleslist'));
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Access Denied');
    // Decided before the screen asks for its metadata: no 403 on the way.
    expect(api.callsTo('GET', '/api/meta/screens/roleslist')).toHaveLength(0);
  });

  it("takes a metadata screen's id from its metadata, not from the route table", async () => {
    seedSession({ screenIds: [1, 5] });
    mockApi({ ...SERVER, 'GET /api/meta/screens': rolesListAs(9) });
    const { router } = renderAt('/dashboard/roleslist');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Froleslist'));
  });

  it('opens the screen when the screen id is granted', async () => {
    seedSession({ screenIds: [1, 5] });
    mockApi({ ...SERVER, 'GET /api/meta/screens/roleslist': ok({ route: 'roleslist', screen: 5, title: 'screens.rolesList.title', tabs: [] }) });
    const { router } = renderAt('/dashboard/roleslist');
    // (the title shows once the screen's metadata has come)
    await waitFor(() => expect(screen.getByTestId('screen-title').textContent).toBe('Roles List'));
    expect(locationOf(router)).toBe('/dashboard/roleslist');
  });

  it('still opens a metadata screen at its old address, dashboard/screens/<route>', async () => {
    seedSession({ screenIds: [1, 5] });
    mockApi({ ...SERVER, 'GET /api/meta/screens/roleslist': ok({ route: 'roleslist', screen: 5, title: 'screens.rolesList.title', tabs: [] }) });
    const { router } = renderAt('/dashboard/screens/roleslist');
    await waitFor(() => expect(screen.getByTestId('screen-title').textContent).toBe('Roles List'));
    expect(locationOf(router)).toBe('/dashboard/screens/roleslist');
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

  it('starts a role holding only administration screens on Users', async () => {
    seedSession({ screenIds: [5, 3] });
    const { router } = renderAt('/dashboard');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/userslist'));
  });

  it('sends an unknown dashboard path to the first granted screen', async () => {
    seedSession({ screenIds: [10] });
    const { router } = renderAt('/dashboard/no-such-screen');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/ras-settings'));
  });

  it('Go Back without history inside the app goes to the first granted screen', async () => {
    seedSession({ screenIds: [10] });
    const { router } = renderAt('/dashboard/roleslist');
    fireEvent.click(await screen.findByTestId('go-back'));
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/ras-settings'));
  });
});
