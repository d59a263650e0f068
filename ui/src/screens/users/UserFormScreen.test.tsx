import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { locationOf, renderAt, seedSession } from '../../test/helpers';
import { created, fail, mockApi, ok } from '../../test/apiMock';
import { getCurrentUser } from '../../auth/session';

// Forms with PrimeReact widgets render slowly in jsdom on a busy machine: allow for it.
vi.setConfig({ testTimeout: 20_000 });

afterEach(() => vi.unstubAllGlobals());

const ROLES = [
  { id: 1, roleName: 'Administrator', description: '', isAdmin: true, createdOn: '', createdBy: 'system' },
  { id: 2, roleName: 'Clerk', description: '', isAdmin: false, createdOn: '', createdBy: 'admin' },
];

const USER = {
  id: 7,
  userId: 7,
  username: 'bo',
  firstName: 'Bo',
  lastName: 'Ek',
  email: 'bo@example.com',
  mobileNumber: '',
  dateOfBirth: '1990-12-31',
  dateFormat: 'DD-MM-YYYY HH:mm:ss',
  languageCode: 'en',
  enableTwoFactor: false,
  twoFactorType: 0,
  isActive: true,
  createdOn: '',
  createdBy: 'admin',
};

function input(label: RegExp | string): HTMLInputElement {
  return screen.getByLabelText(label) as HTMLInputElement;
}

function type(label: RegExp | string, value: string) {
  fireEvent.change(input(label), { target: { value } });
}

function saveButton() {
  return screen.getByTestId('form-save') as HTMLButtonElement;
}

async function fillRequired() {
  type(/^Username/, 'newbie');
  type(/^First name/, 'New');
  type(/^Last name/, 'Bie');
  type(/^Email/, 'newbie@example.com');
}

describe('add user', () => {
  it('keeps Save disabled until the required fields and a valid password are there', async () => {
    seedSession();
    const api = mockApi({ 'GET /api/roles': ok(ROLES) });
    renderAt('/dashboard/users/add');
    expect(await screen.findByTestId('screen-title')).toHaveProperty('textContent', 'Add User');
    await screen.findByLabelText('Clerk');
    expect(saveButton().disabled).toBe(true);
    expect((screen.getByTestId('form-save-new') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.blur(input(/^Username/));
    expect(screen.getByTestId('error-username').textContent).toBe('Username is required');

    await fillRequired();
    expect(saveButton().disabled).toBe(true); // no password yet
    fireEvent.submit(screen.getByTestId('user-form')); // Enter in a field: still nothing is sent
    type(/^Password\s*\*?$/, 'weakpass');
    expect(screen.getByTestId('password-strength').getAttribute('data-strength')).toBe('weak');
    expect(saveButton().disabled).toBe(true);
    type(/^Email/, 'not-an-email');
    type(/^Password\s*\*?$/, 'Str0ng#Pass');
    expect(saveButton().disabled).toBe(true); // invalid email
    type(/^Email/, 'newbie@example.com');
    expect(saveButton().disabled).toBe(false);
    expect(api.callsTo('POST', '/api/users')).toHaveLength(0);
  });

  it('shows the rule checklist with ticks and truncates the password at 20 characters', async () => {
    seedSession();
    mockApi({ 'GET /api/roles': ok(ROLES) });
    renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    type(/^Password\s*\*?$/, 'abc');
    expect(screen.getByTestId('password-rule-lowercase').getAttribute('data-met')).toBe('true');
    expect(screen.getByTestId('password-rule-uppercase').getAttribute('data-met')).toBe('false');
    type(/^Password\s*\*?$/, 'Abcdefg1#');
    for (const rule of ['length', 'uppercase', 'lowercase', 'digit', 'special']) {
      expect(screen.getByTestId(`password-rule-${rule}`).getAttribute('data-met')).toBe('true');
    }
    expect(screen.getByTestId('password-strength').getAttribute('data-strength')).toBe('strong');
    type(/^Password\s*\*?$/, 'Abcdefg1#'.repeat(4));
    expect(input(/^Password\s*\*?$/).value).toHaveLength(20);
  });

  it('submits POST /users, then PUT the chosen roles, and goes to the user list', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles': ok(ROLES),
      'POST /api/users': created({ user: { ...USER, id: 42, userId: 42, username: 'newbie' } }),
      'PUT /api/users/42/roles': ok([{ id: 2, roleId: 2, roleName: 'Clerk' }]),
    });
    const { router } = renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    await fillRequired();
    type(/^Password\s*\*?$/, 'Str0ng#Pass');
    type(/^Mobile number/, '+46 70 123 45 67');
    fireEvent.click(screen.getByLabelText('Clerk'));
    fireEvent.click(saveButton());

    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/userslist'));
    expect(api.callsTo('POST', '/api/users')[0]?.body).toEqual({
      username: 'newbie',
      firstName: 'New',
      lastName: 'Bie',
      email: 'newbie@example.com',
      mobileNumber: '+46 70 123 45 67',
      dateOfBirth: null,
      password: 'Str0ng#Pass',
      dateFormat: 'DD-MM-YYYY HH:mm:ss',
      languageCode: 'en',
      enableTwoFactor: false,
      twoFactorType: 0,
    });
    expect(api.callsTo('PUT', '/api/users/42/roles')[0]?.body).toEqual({ roleIds: [2] });
    const order = api.calls.map((c) => `${c.method} ${c.url}`);
    expect(order.indexOf('PUT /api/users/42/roles')).toBeGreaterThan(order.indexOf('POST /api/users'));
    expect(await screen.findByText('User created successfully')).toBeTruthy();
  });

  it('does not set roles when none were chosen; Save and New stays on a fresh add form', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles': ok(ROLES),
      'POST /api/users': created({ user: { ...USER, id: 43, userId: 43 } }),
    });
    const { router } = renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    await fillRequired();
    type(/^Password\s*\*?$/, 'Str0ng#Pass');
    fireEvent.click(screen.getByTestId('form-save-new'));
    await screen.findByText('User created successfully');
    await waitFor(() => expect(input(/^Username/).value).toBe(''));
    expect(locationOf(router)).toBe('/dashboard/users/add');
    expect(api.calls.filter((c) => c.url.endsWith('/roles') && c.method === 'PUT')).toHaveLength(0);
    expect(api.callsTo('GET', '/api/roles').length).toBe(2); // roles reloaded
  });

  it('shows a server field error on the field and as an error toast', async () => {
    seedSession();
    mockApi({
      'GET /api/roles': ok(ROLES),
      'POST /api/users': fail(409, 'Username "newbie" is already taken.', 'username'),
    });
    renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    await fillRequired();
    type(/^Password\s*\*?$/, 'Str0ng#Pass');
    fireEvent.click(saveButton());
    await waitFor(() => expect(screen.getByTestId('error-username').textContent).toBe('Username "newbie" is already taken.'));
    expect(document.querySelector('.p-toast-message-error')?.textContent).toContain('Username "newbie" is already taken.');
    type(/^Username/, 'newbie2'); // editing the field clears the server's complaint
    expect(screen.queryByTestId('error-username')).toBeNull();
  });

  it('select-all selects every role and follows the single boxes; the collapsed header counts them', async () => {
    seedSession();
    mockApi({ 'GET /api/roles': ok(ROLES) });
    renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    const all = screen.getByLabelText('Select all') as HTMLInputElement;
    fireEvent.click(all);
    expect((screen.getByLabelText('Administrator') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Clerk') as HTMLInputElement).checked).toBe(true);
    expect(all.checked).toBe(true);
    fireEvent.click(screen.getByLabelText('Clerk'));
    expect((screen.getByLabelText('Select all') as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByTestId('roles-section-toggle'));
    expect(screen.getByTestId('roles-section-summary').textContent).toBe('Selected: 1');
    fireEvent.click(screen.getByTestId('configuration-section-toggle'));
    expect(screen.getByTestId('configuration-section-summary').textContent).toBe('DD-MM-YYYY HH:mm:ss · English');
  });

  it('couples the two-factor checkbox and type', async () => {
    seedSession();
    mockApi({ 'GET /api/roles': ok(ROLES) });
    renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    const typeBox = screen.getByTestId('two-factor-type');
    expect(typeBox.className).toContain('p-disabled');
    expect(typeBox.textContent).toContain('None');
    fireEvent.click(screen.getByLabelText('Enable two-factor authentication'));
    expect(screen.getByTestId('two-factor-type').className).not.toContain('p-disabled');
    expect(screen.getByTestId('two-factor-type').textContent).toContain('Email');
    fireEvent.click(screen.getByLabelText('Enable two-factor authentication'));
    expect(screen.getByTestId('two-factor-type').textContent).toContain('None');
  });

  it('reads a typed date of birth in the signed-in user format and refuses one before 1900', async () => {
    seedSession();
    localStorage.setItem('currentUser', JSON.stringify({ ...getCurrentUser(), dateFormat: 'MM/DD/YYYY HH:mm:ss' }));
    const api = mockApi({ 'GET /api/roles': ok(ROLES), 'POST /api/users': created({ user: { ...USER, id: 44, userId: 44 } }) });
    renderAt('/dashboard/users/add');
    await screen.findByLabelText('Clerk');
    const dob = input('Date of birth');
    expect(dob.placeholder).toBe('MM/DD/YYYY');
    await act(async () => {}); // the date picker's effects first (it takes its onChange in one)

    fireEvent.focus(dob);
    fireEvent.input(dob, { target: { value: '12/31/1899' } });
    fireEvent.blur(dob);
    expect(await screen.findByText('Please select a date after January 1, 1900')).toBeTruthy();
    expect(dob.value).toBe('');

    fireEvent.focus(dob);
    fireEvent.input(dob, { target: { value: '31/12/1990' } }); // month 31 in MM/DD/YYYY
    fireEvent.blur(dob);
    expect(await screen.findByText('Invalid date format. Please check the date of birth.')).toBeTruthy();

    fireEvent.focus(dob);
    fireEvent.input(dob, { target: { value: '2/3/04' } });
    fireEvent.blur(dob);
    await waitFor(() => expect(dob.value).toBe('02/03/2004'));

    // Key by key: a prefix that is already a date ("06/15/19") must not be rewritten mid-typing.
    dob.focus();
    fireEvent.input(dob, { target: { value: '' } });
    for (const prefix of ['0', '06', '06/', '06/1', '06/15', '06/15/', '06/15/1', '06/15/19', '06/15/199', '06/15/1990']) {
      fireEvent.input(dob, { target: { value: prefix } });
      expect(dob.value).toBe(prefix);
    }
    fireEvent.blur(dob);
    await waitFor(() => expect(dob.value).toBe('06/15/1990'));

    // Enter confirms the typed date (and does not submit the form).
    dob.focus();
    fireEvent.input(dob, { target: { value: '2/3/04' } });
    fireEvent.keyDown(dob, { key: 'Enter', code: 'Enter' });
    fireEvent.blur(dob);
    await waitFor(() => expect(dob.value).toBe('02/03/2004'));

    await fillRequired();
    type(/^Password\s*\*?$/, 'Str0ng#Pass');
    fireEvent.click(saveButton());
    await waitFor(() => expect(api.callsTo('POST', '/api/users')).toHaveLength(1));
    expect((api.callsTo('POST', '/api/users')[0]?.body as { dateOfBirth: string }).dateOfBirth).toBe('2004-02-03');
  });
});

describe('edit user', () => {
  it('loads the user and roles, needs a change to save, and sends roles only when they changed', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles': ok(ROLES),
      'GET /api/users/7': ok(USER),
      'GET /api/users/7/roles': ok([{ id: 2, roleId: 2, roleName: 'Clerk' }]),
      'PUT /api/users/7': (body) => ok({ ...USER, ...(body as object) }),
      'PUT /api/users/7/roles': ok([]),
    });
    const { router } = renderAt('/dashboard/users/edit/7');
    // The user, its roles and the date input's own text arrive in separate renders: wait for all three.
    await waitFor(() => {
      expect(input(/^Username/).value).toBe('bo');
      expect(input('Date of birth').value).toBe('31-12-1990');
      expect((screen.getByLabelText('Clerk') as HTMLInputElement).checked).toBe(true);
    });
    expect(screen.getByTestId('screen-title').textContent).toBe('Edit User');
    expect(screen.queryByLabelText(/^Password\s*\*?$/)).toBeNull();
    expect(saveButton().disabled).toBe(true); // nothing changed yet

    type(/^First name/, 'Bosse');
    expect(saveButton().disabled).toBe(false);

    // Change Password on: the new password must meet every rule; off again clears it.
    fireEvent.click(within(screen.getByTestId('change-password')).getByRole('switch'));
    expect(saveButton().disabled).toBe(true);
    type(/^New Password/, 'Abc');
    expect(saveButton().disabled).toBe(true);
    fireEvent.click(within(screen.getByTestId('change-password')).getByRole('switch'));
    expect(input(/^New Password/).value).toBe('');
    expect(saveButton().disabled).toBe(false);

    fireEvent.click(saveButton());
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/userslist'));
    expect(api.callsTo('PUT', '/api/users/7')[0]?.body).toMatchObject({ firstName: 'Bosse', changePassword: false, dateOfBirth: '1990-12-31' });
    expect(api.callsTo('PUT', '/api/users/7/roles')).toHaveLength(0);
    expect(await screen.findByText('User updated successfully')).toBeTruthy();
  });

  it('a role change alone enables Save and is sent; Save and New goes to the add route', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles': ok(ROLES),
      'GET /api/users/7': ok(USER),
      'GET /api/users/7/roles': ok([]),
      'PUT /api/users/7': ok(USER),
      'PUT /api/users/7/roles': ok([]),
    });
    const { router } = renderAt('/dashboard/users/edit/7');
    await waitFor(() => expect(input(/^Username/).value).toBe('bo'));
    fireEvent.click(await screen.findByLabelText('Clerk'));
    expect(saveButton().disabled).toBe(false);
    fireEvent.click(screen.getByTestId('form-save-new'));
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/users/add'));
    expect(api.callsTo('PUT', '/api/users/7/roles')[0]?.body).toEqual({ roleIds: [2] });
  });

  it('editing yourself refreshes the stored current user and applies the language', async () => {
    seedSession();
    localStorage.setItem('currentUser', JSON.stringify({ ...getCurrentUser(), userId: 7, username: 'bo' }));
    mockApi({
      'GET /api/roles': ok(ROLES),
      'GET /api/users/7': ok(USER),
      'GET /api/users/7/roles': ok([]),
      'PUT /api/users/7': ok({ ...USER, firstName: 'Bosse', languageCode: 'sv', dateFormat: 'YYYY-MM-DD HH:mm:ss' }),
    });
    renderAt('/dashboard/users/edit/7');
    await waitFor(() => expect(input(/^Username/).value).toBe('bo'));
    type(/^First name/, 'Bosse');
    fireEvent.click(saveButton());
    await waitFor(() => expect(getCurrentUser()?.firstName).toBe('Bosse'));
    expect(getCurrentUser()).toMatchObject({ languageCode: 'sv', dateFormat: 'YYYY-MM-DD HH:mm:ss', userId: 7 });
    expect(getCurrentUser()?.token).toBeTruthy();
    expect(localStorage.getItem('defaultLang')).toBe('"sv"');
  });

  it('sends the version it read; a save over a newer one says to reload; Unlock clears the sign-in lock', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles': ok(ROLES),
      'GET /api/users/7': ok({ ...USER, version: '2026-11-24T10:00:00.123456Z' }),
      'GET /api/users/7/roles': ok([]),
      'PUT /api/users/7': fail(409, 'This record was changed by someone else after you loaded it.'),
      'POST /api/users/7/unlock': ok(null),
    });
    renderAt('/dashboard/users/edit/7');
    await waitFor(() => expect(input(/^Username/).value).toBe('bo'));
    type(/^First name/, 'Bosse');
    fireEvent.click(saveButton());
    expect(await screen.findByText(/Someone else changed this record after you opened it/)).toBeTruthy();
    expect(api.callsTo('PUT', '/api/users/7')[0]?.body).toMatchObject({ firstName: 'Bosse', version: '2026-11-24T10:00:00.123456Z' });

    fireEvent.click(screen.getByTestId('user-unlock'));
    expect(await screen.findByText(/Sign-in unlocked/)).toBeTruthy();
    expect(api.callsTo('POST', '/api/users/7/unlock')).toHaveLength(1);
  });

  it('reports a failed load', async () => {
    seedSession();
    mockApi({ 'GET /api/roles': ok(ROLES), 'GET /api/users/7': fail(404, 'User 7 not found.'), 'GET /api/users/7/roles': ok([]) });
    renderAt('/dashboard/users/edit/7');
    expect(await screen.findByText('Failed to load user data')).toBeTruthy();
  });
});
