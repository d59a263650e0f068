import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { locationOf, renderAt, seedSession } from '../test/helpers';

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
    const { router } = renderAt('/dashboard/roleslist');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/unauthorized?returnUrl=%2Fdashboard%2Froleslist'));
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Access Denied');
  });

  it('opens the screen when the screen id is granted', async () => {
    seedSession({ screenIds: [1, 5] });
    const { router } = renderAt('/dashboard/roleslist');
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Roles List');
    expect(locationOf(router)).toBe('/dashboard/roleslist');
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
