import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { locationOf, renderAt, seedSession } from '../../test/helpers';
import { created, fail, mockApi, ok } from '../../test/apiMock';
import { resetWebScreenCache } from '../../api/identity';
import i18n from '../../i18n';

// Forms with PrimeReact widgets render slowly in jsdom on a busy machine: allow for it.
vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => resetWebScreenCache());
afterEach(() => vi.unstubAllGlobals());

const SCREENS = [
  { id: 1, screenName: 'Home' },
  { id: 2, screenName: 'Data Import' },
  { id: 3, screenName: 'Users List' },
];

const ROLE = { id: 9, roleName: 'Clerk', description: 'Imports files', isAdmin: false, createdOn: '', createdBy: 'admin' };

function saveButton() {
  return screen.getByTestId('form-save') as HTMLButtonElement;
}

function box(label: string) {
  return screen.getByLabelText(label) as HTMLInputElement;
}

describe('add role', () => {
  it('shows a loading text, needs a role name, then POSTs the role and PUTs its screens', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'POST /api/roles': created(ROLE),
      'PUT /api/roles/9/screens': ok([]),
    });
    const { router } = renderAt('/dashboard/roles/add');
    expect(await screen.findByText('Loading screens…')).toBeTruthy();
    await screen.findByLabelText('Data Import');
    expect(screen.getByTestId('screen-title').textContent).toBe('Add Role');
    expect(saveButton().disabled).toBe(true);

    fireEvent.blur(screen.getByLabelText(/^Role name/));
    expect(screen.getByTestId('error-roleName').textContent).toBe('Role name is required');
    expect((screen.getByLabelText(/^Role name/) as HTMLInputElement).maxLength).toBe(50);
    expect((screen.getByLabelText('Description') as HTMLTextAreaElement).maxLength).toBe(200);

    fireEvent.change(screen.getByLabelText(/^Role name/), { target: { value: '  Clerk ' } });
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'Imports files' } });
    fireEvent.click(box('Home'));
    fireEvent.click(box('Data Import'));
    expect(box('Select all').checked).toBe(false);
    expect(saveButton().disabled).toBe(false);
    fireEvent.click(saveButton());

    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/roleslist'));
    // No limit typed: the role gives no write-offs, said as null.
    expect(api.callsTo('POST', '/api/roles')[0]?.body).toEqual({ roleName: 'Clerk', description: 'Imports files', writeOffLimit: null });
    expect(api.callsTo('PUT', '/api/roles/9/screens')[0]?.body).toEqual({ screenIds: [1, 2] });
    expect(await screen.findByText('Role created successfully')).toBeTruthy();
  });

  it('names the screens in the reader language', async () => {
    seedSession();
    mockApi({ 'GET /api/roles/webscreens': ok([...SCREENS, { id: 99, screenName: 'Brand New' }]) });
    await i18n.changeLanguage('pt');
    try {
      renderAt('/dashboard/roles/add');
      await screen.findByLabelText('Importação de dados');
      expect(box('Início')).toBeTruthy();
      expect(box('Lista de utilizadores')).toBeTruthy();
      expect(box('Brand New')).toBeTruthy(); // a screen without a translation keeps the server's name
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('select-all ticks every screen and follows the single boxes', async () => {
    seedSession();
    mockApi({ 'GET /api/roles/webscreens': ok(SCREENS) });
    renderAt('/dashboard/roles/add');
    await screen.findByLabelText('Data Import');
    fireEvent.click(box('Select all'));
    expect(SCREENS.every((s) => box(s.screenName).checked)).toBe(true);
    fireEvent.click(box('Home'));
    expect(box('Select all').checked).toBe(false);
    fireEvent.click(box('Home'));
    expect(box('Select all').checked).toBe(true);
  });

  it('reports an invalid id from the server and sends no screens', async () => {
    seedSession();
    const api = mockApi({ 'GET /api/roles/webscreens': ok(SCREENS), 'POST /api/roles': created({ ...ROLE, id: 0 }) });
    renderAt('/dashboard/roles/add');
    await screen.findByLabelText('Data Import');
    fireEvent.change(screen.getByLabelText(/^Role name/), { target: { value: 'Clerk' } });
    fireEvent.click(box('Home'));
    fireEvent.click(saveButton());
    expect(await screen.findByText('Invalid role ID received from server')).toBeTruthy();
    expect(api.calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });

  it('shows a duplicate name on the field and in the toast', async () => {
    seedSession();
    mockApi({ 'GET /api/roles/webscreens': ok(SCREENS), 'POST /api/roles': fail(409, 'Role "Clerk" already exists.', 'roleName') });
    renderAt('/dashboard/roles/add');
    await screen.findByLabelText('Data Import');
    fireEvent.change(screen.getByLabelText(/^Role name/), { target: { value: 'Clerk' } });
    fireEvent.click(saveButton());
    expect(await screen.findByText('Failed to create role: Role "Clerk" already exists.')).toBeTruthy();
    expect(screen.getByTestId('error-roleName').textContent).toBe('Role "Clerk" already exists.');
  });

  it('Save and New without screens creates the role, sends no mapping and clears the form', async () => {
    seedSession();
    const api = mockApi({ 'GET /api/roles/webscreens': ok(SCREENS), 'POST /api/roles': created(ROLE) });
    const { router } = renderAt('/dashboard/roles/add');
    await screen.findByLabelText('Data Import');
    fireEvent.change(screen.getByLabelText(/^Role name/), { target: { value: 'Clerk' } });
    fireEvent.click(screen.getByTestId('form-save-new'));
    await screen.findByText('Role created successfully');
    await waitFor(() => expect((screen.getByLabelText(/^Role name/) as HTMLInputElement).value).toBe(''));
    expect(locationOf(router)).toBe('/dashboard/roles/add');
    expect(api.calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
    expect(api.callsTo('GET', '/api/roles/webscreens')).toHaveLength(1); // cached
  });

  it('reports screens that fail to load', async () => {
    seedSession();
    mockApi({ 'GET /api/roles/webscreens': fail(500, 'database down') });
    renderAt('/dashboard/roles/add');
    expect(await screen.findByText('Failed to load screens: database down')).toBeTruthy();
  });
});

describe('edit role', () => {
  it('updates the role and sends screens only when they changed', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'GET /api/roles/9': ok(ROLE),
      'GET /api/roles/9/screens': ok([{ screenId: 1, screenName: 'Home' }]),
      'PUT /api/roles/9': ok({ ...ROLE, description: 'Imports and checks files' }),
      'PUT /api/roles/9/screens': ok([]),
    });
    const { router } = renderAt('/dashboard/roles/edit/9');
    await waitFor(() => expect((screen.getByLabelText(/^Role name/) as HTMLInputElement).value).toBe('Clerk'));
    expect(screen.getByTestId('screen-title').textContent).toBe('Edit Role');
    expect(box('Home').checked).toBe(true);
    expect(saveButton().disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'Imports and checks files' } });
    fireEvent.click(saveButton());
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/roleslist'));
    expect(api.callsTo('PUT', '/api/roles/9')[0]?.body).toEqual({ roleName: 'Clerk', description: 'Imports and checks files', writeOffLimit: null });
    expect(api.callsTo('PUT', '/api/roles/9/screens')).toHaveLength(0);
    expect(await screen.findByText('Role updated successfully')).toBeTruthy();
  });

  it('sends the version it read; a save over a newer one says to reload', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'GET /api/roles/9': ok({ ...ROLE, version: '2026-11-24T10:00:00Z' }),
      'GET /api/roles/9/screens': ok([]),
      'PUT /api/roles/9': fail(409, 'This record was changed by someone else after you loaded it.'),
    });
    renderAt('/dashboard/roles/edit/9');
    await waitFor(() => expect((screen.getByLabelText(/^Role name/) as HTMLInputElement).value).toBe('Clerk'));
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'Other' } });
    fireEvent.click(saveButton());
    expect(await screen.findByText(/Someone else changed this record after you opened it/)).toBeTruthy();
    expect(api.callsTo('PUT', '/api/roles/9')[0]?.body).toEqual({ roleName: 'Clerk', description: 'Other', writeOffLimit: null, version: '2026-11-24T10:00:00Z' });
  });

  it('a screen change alone is saved', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'GET /api/roles/9': ok(ROLE),
      'GET /api/roles/9/screens': ok([{ screenId: 1, screenName: 'Home' }]),
      'PUT /api/roles/9': ok(ROLE),
      'PUT /api/roles/9/screens': fail(500, 'boom'),
    });
    renderAt('/dashboard/roles/edit/9');
    await waitFor(() => expect(box('Home').checked).toBe(true));
    fireEvent.click(box('Users List'));
    fireEvent.click(saveButton());
    expect(await screen.findByText('Failed to update screen permissions: boom')).toBeTruthy();
    expect(api.callsTo('PUT', '/api/roles/9/screens')[0]?.body).toEqual({ screenIds: [1, 3] });
  });

  it('shows the Administrator role with every screen checked and locked, and never sends its screens', async () => {
    seedSession();
    const admin = { ...ROLE, id: 1, roleName: 'Administrator', isAdmin: true };
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'GET /api/roles/1': ok(admin),
      'GET /api/roles/1/screens': ok([]),
      'PUT /api/roles/1': ok(admin),
    });
    renderAt('/dashboard/roles/edit/1');
    await screen.findByTestId('admin-role-note');
    for (const s of SCREENS) {
      expect(box(s.screenName).checked).toBe(true);
      expect(box(s.screenName).disabled).toBe(true);
    }
    expect(box('Select all').disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'Everything' } });
    fireEvent.click(saveButton());
    await screen.findByText('Role updated successfully');
    expect(api.calls.filter((c) => c.url.includes('/screens') && c.method === 'PUT')).toHaveLength(0);
  });

  it('reports a role that fails to load', async () => {
    seedSession();
    mockApi({ 'GET /api/roles/webscreens': ok(SCREENS), 'GET /api/roles/9': fail(404, 'Role 9 not found.'), 'GET /api/roles/9/screens': ok([]) });
    renderAt('/dashboard/roles/edit/9');
    expect(await screen.findByText('Failed to load role data: Role 9 not found.')).toBeTruthy();
  });
});

describe('write-off limit', () => {
  const limit = () => screen.getByTestId('role-writeoff-limit') as HTMLInputElement;

  it('is optional, sent as an amount with 2 decimals; 1.234, a negative or a word is refused before the call', async () => {
    seedSession();
    const api = mockApi({ 'GET /api/roles/webscreens': ok(SCREENS), 'POST /api/roles': created({ ...ROLE, writeOffLimit: '250.00' }), 'PUT /api/roles/9/screens': ok([]) });
    const { router } = renderAt('/dashboard/roles/add');
    await screen.findByLabelText('Data Import');
    expect(screen.getByLabelText('Write-off limit (USD)')).toBe(limit());
    fireEvent.change(screen.getByLabelText(/^Role name/), { target: { value: 'Clerk' } });
    expect(saveButton().disabled).toBe(false);

    for (const [typed, error] of [
      ['1.234', 'The write-off limit has at most 2 decimals'],
      ['-5', 'The write-off limit cannot be negative'],
      ['a lot', 'Write the write-off limit as an amount, e.g. 250.00'],
    ] as const) {
      fireEvent.change(limit(), { target: { value: typed } });
      fireEvent.blur(limit());
      expect(screen.getByTestId('error-writeOffLimit').textContent).toBe(error);
      expect(saveButton().disabled).toBe(true);
      fireEvent.click(saveButton());
    }
    expect(api.callsTo('POST', '/api/roles')).toHaveLength(0);

    fireEvent.change(limit(), { target: { value: ' 250 ' } });
    expect(screen.queryByTestId('error-writeOffLimit')).toBeNull();
    fireEvent.click(saveButton());
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/roleslist'));
    expect(api.callsTo('POST', '/api/roles')[0]?.body).toEqual({ roleName: 'Clerk', description: '', writeOffLimit: '250.00' });
  });

  it('shows the role\'s limit on edit, sends a changed one; the server\'s refusal shows on the field', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'GET /api/roles/9': ok({ ...ROLE, writeOffLimit: '100.00' }),
      'GET /api/roles/9/screens': ok([]),
      'PUT /api/roles/9': [fail(400, 'The write-off limit is too large.', 'writeOffLimit'), ok({ ...ROLE, writeOffLimit: '99.50' }), ok({ ...ROLE, writeOffLimit: null })],
    });
    renderAt('/dashboard/roles/edit/9');
    await waitFor(() => expect(limit().value).toBe('100.00'));
    expect(saveButton().disabled).toBe(true);

    fireEvent.change(limit(), { target: { value: '99999999999999' } });
    fireEvent.click(saveButton());
    expect(await screen.findByText('Failed to update role: The write-off limit is too large.')).toBeTruthy();
    expect(screen.getByTestId('error-writeOffLimit').textContent).toBe('The write-off limit is too large.');
    expect(api.callsTo('PUT', '/api/roles/9')[0]?.body).toMatchObject({ writeOffLimit: '99999999999999.00' });

    fireEvent.change(limit(), { target: { value: '99,5' } });
    expect(screen.queryByTestId('error-writeOffLimit')).toBeNull();
    fireEvent.click(saveButton());
    await waitFor(() => expect(api.callsTo('PUT', '/api/roles/9')).toHaveLength(2));
    expect(api.callsTo('PUT', '/api/roles/9')[1]?.body).toEqual({ roleName: 'Clerk', description: 'Imports files', writeOffLimit: '99.50' });
  });

  it('a cleared limit is sent as null', async () => {
    seedSession();
    const api = mockApi({
      'GET /api/roles/webscreens': ok(SCREENS),
      'GET /api/roles/9': ok({ ...ROLE, writeOffLimit: '100.00' }),
      'GET /api/roles/9/screens': ok([]),
      'PUT /api/roles/9': ok({ ...ROLE, writeOffLimit: null }),
    });
    const { router } = renderAt('/dashboard/roles/edit/9');
    await waitFor(() => expect(limit().value).toBe('100.00'));
    fireEvent.change(limit(), { target: { value: '' } });
    fireEvent.click(saveButton());
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard/roleslist'));
    expect(api.callsTo('PUT', '/api/roles/9')[0]?.body).toEqual({ roleName: 'Clerk', description: 'Imports files', writeOffLimit: null });
  });
});
