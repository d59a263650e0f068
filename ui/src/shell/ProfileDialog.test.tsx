import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ToastProvider } from './toast';
import { pageReload, ProfileDialog } from './ProfileDialog';
import { seedSession } from '../test/helpers';
import { fail, mockApi, ok } from '../test/apiMock';
import { getCurrentUser } from '../auth/session';

// Forms with PrimeReact widgets render slowly in jsdom on a busy machine: allow for it.
vi.setConfig({ testTimeout: 20_000 });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const PROFILE = {
  userId: 5,
  id: 5,
  username: 'anna',
  firstName: 'Anna',
  lastName: 'Berg',
  email: 'anna@example.com',
  mobileNumber: '',
  dateOfBirth: '1985-03-04',
  dateFormat: 'YYYY/MM/DD HH:mm:ss',
  languageCode: 'en',
};

function renderDialog(onHide = () => {}) {
  return render(
    <ToastProvider>
      <ProfileDialog visible onHide={onHide} />
    </ToastProvider>,
  );
}

describe('profile dialog', () => {
  it('loads the profile, saves it, stores it as the current user and reloads', async () => {
    seedSession();
    localStorage.setItem('currentUser', JSON.stringify({ ...getCurrentUser(), dateFormat: 'YYYY/MM/DD HH:mm:ss' }));
    const reload = vi.spyOn(pageReload, 'reload').mockImplementation(() => {});
    pageReload.delayMs = 0;
    const api = mockApi({
      'GET /api/profile': ok(PROFILE),
      'PUT /api/profile': (body) => ok({ ...PROFILE, ...(body as object) }),
    });
    const onHide = vi.fn();
    renderDialog(onHide);

    const first = (await screen.findByLabelText('First name')) as HTMLInputElement;
    await waitFor(() => expect(first.value).toBe('Anna'));
    expect(screen.getByText('My Profile')).toBeTruthy();
    expect(screen.getByTestId('profile-avatar').textContent).toBe('A');
    const username = screen.getByLabelText('Username') as HTMLInputElement;
    expect(username.value).toBe('anna');
    expect(username.readOnly).toBe(true);
    expect((screen.getByLabelText('Mobile number') as HTMLInputElement).type).toBe('tel');
    const dob = screen.getByLabelText('Date of birth') as HTMLInputElement;
    await waitFor(() => expect(dob.value).toBe('1985/03/04')); // the calendar writes its text in an effect
    expect(dob.readOnly).toBe(true); // typing disabled

    fireEvent.change(first, { target: { value: 'Annika' } });
    const digest = screen.getByLabelText('Send me a daily digest by email') as HTMLInputElement;
    expect(digest.checked).toBe(false);
    fireEvent.click(digest);
    fireEvent.click(screen.getByTestId('profile-save'));

    await waitFor(() => expect(reload).toHaveBeenCalled());
    expect(api.callsTo('PUT', '/api/profile')[0]?.body).toEqual({
      userId: 5,
      firstName: 'Annika',
      lastName: 'Berg',
      email: 'anna@example.com',
      mobileNumber: '',
      dateOfBirth: '1985-03-04',
      dateFormat: 'YYYY/MM/DD HH:mm:ss',
      languageCode: 'en',
      dailyDigest: true,
    });
    expect(getCurrentUser()).toMatchObject({ firstName: 'Annika', userId: 5 });
    expect(getCurrentUser()?.token).toBeTruthy();
    expect(onHide).toHaveBeenCalled();
    expect(await screen.findByText('Profile updated successfully')).toBeTruthy();
  });

  it('shows the server error in a toast and does not reload', async () => {
    seedSession();
    const reload = vi.spyOn(pageReload, 'reload').mockImplementation(() => {});
    mockApi({ 'GET /api/profile': ok(PROFILE), 'PUT /api/profile': fail(400, 'Email is not a valid email address.', 'email') });
    renderDialog();
    const email = (await screen.findByLabelText('Email')) as HTMLInputElement;
    await waitFor(() => expect(email.value).toBe('anna@example.com'));
    fireEvent.change(email, { target: { value: 'anna@example.org' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    expect(await screen.findAllByText('Email is not a valid email address.')).toHaveLength(2); // field and toast
    expect(reload).not.toHaveBeenCalled();
  });

  it('keeps Save disabled while a required field is empty', async () => {
    seedSession();
    mockApi({ 'GET /api/profile': ok(PROFILE) });
    renderDialog();
    const last = (await screen.findByLabelText('Last name')) as HTMLInputElement;
    await waitFor(() => expect(last.value).toBe('Berg'));
    fireEvent.change(last, { target: { value: ' ' } });
    expect((screen.getByTestId('profile-save') as HTMLButtonElement).disabled).toBe(true);
  });

  it('a new email or password needs the current password; a two-factor user also sends a code', async () => {
    seedSession();
    pageReload.delayMs = 0;
    vi.spyOn(pageReload, 'reload').mockImplementation(() => {});
    const api = mockApi({
      'GET /api/profile': ok({ ...PROFILE, enableTwoFactor: true }),
      'POST /api/profile/code': ok({ challengeId: 'c-1', channel: 'email' }),
      'PUT /api/profile': (body) => ok({ ...PROFILE, ...(body as object) }),
    });
    renderDialog();
    const email = (await screen.findByLabelText('Email')) as HTMLInputElement;
    await waitFor(() => expect(email.value).toBe('anna@example.com'));
    expect(screen.queryByLabelText('Current password')).toBeNull(); // nothing to prove yet

    fireEvent.change(email, { target: { value: 'anna.berg@example.com' } });
    fireEvent.change(screen.getByLabelText('Current password'), { target: { value: 'Old#pass1' } });
    fireEvent.click(screen.getByTestId('profile-send-code'));
    expect(await screen.findByText('A confirmation code is on its way.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Confirmation code'), { target: { value: '123456' } });
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'New#pass22' } });
    fireEvent.click(screen.getByTestId('profile-save'));

    await waitFor(() => expect(api.callsTo('PUT', '/api/profile')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/profile')[0]?.body).toMatchObject({
      email: 'anna.berg@example.com',
      currentPassword: 'Old#pass1',
      newPassword: 'New#pass22',
      challengeId: 'c-1',
      code: '123456',
    });
  });

  it('lets Escape close an open dropdown first, and only then the dialog', async () => {
    seedSession();
    mockApi({ 'GET /api/profile': ok(PROFILE) });
    const onHide = vi.fn();
    renderDialog(onHide);
    await screen.findByLabelText('Last name');
    const panel = document.createElement('div'); // what an open PrimeReact dropdown adds to the page
    panel.className = 'p-dropdown-panel';
    document.body.appendChild(panel);
    fireEvent.keyDown(screen.getByLabelText('Last name'), { key: 'Escape' });
    expect(onHide).not.toHaveBeenCalled();
    panel.remove();
    fireEvent.keyDown(screen.getByLabelText('Last name'), { key: 'Escape' });
    expect(onHide).toHaveBeenCalledTimes(1);
  });
});
