import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderAt, seedSession } from '../test/helpers';
import { mockApi, ok } from '../test/apiMock';
import i18n from '../i18n';

describe('language button', () => {
  it('shows EN, and choosing Svenska stores "sv" and translates the menu', async () => {
    seedSession();
    renderAt('/dashboard/home');
    const button = await screen.findByTestId('language-button');
    expect(button.textContent).toBe('EN');
    const sidebar = screen.getByTestId('sidebar');
    expect(within(sidebar).getByText('Data Import')).toBeTruthy();

    fireEvent.click(button);
    fireEvent.click(await screen.findByTestId('language-option-sv'));

    await waitFor(() => expect(screen.getByTestId('language-button').textContent).toBe('SV'));
    expect(localStorage.getItem('defaultLang')).toBe('"sv"');
    expect(within(sidebar).getByText('Dataimport')).toBeTruthy();
    expect(within(sidebar).queryByText('Data Import')).toBeNull();
  });

  it('saves the chosen language to the profile, keeping the rest of it', async () => {
    seedSession();
    const profile = { userId: 4, id: 4, username: 'anna', firstName: 'Anna', lastName: 'Berg', email: 'anna@example.com',
      mobileNumber: '+46 70 1', dateOfBirth: '1990-01-31', dateFormat: 'DD/MM/YYYY HH:mm:ss', languageCode: 'en' };
    const api = mockApi({ 'GET /api/profile': ok(profile), 'PUT /api/profile': ok({ ...profile, languageCode: 'es' }) });
    try {
      renderAt('/dashboard/home');
      fireEvent.click(await screen.findByTestId('language-button'));
      fireEvent.click(await screen.findByTestId('language-option-es'));
      await waitFor(() => expect(api.callsTo('PUT', '/api/profile')).toHaveLength(1));
      const { id: _id, username: _username, ...input } = profile;
      expect(api.callsTo('PUT', '/api/profile')[0]?.body).toEqual({ ...input, languageCode: 'es' });
      await waitFor(() => expect(JSON.parse(localStorage.getItem('currentUser') ?? '{}').languageCode).toBe('es'));
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('is on the sign-in screen too', async () => {
    renderAt('/login');
    expect((await screen.findByTestId('language-button')).textContent).toBe('EN');
  });
});
