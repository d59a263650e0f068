import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderAt, seedSession } from '../test/helpers';

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

  it('is on the sign-in screen too', async () => {
    renderAt('/login');
    expect((await screen.findByTestId('language-button')).textContent).toBe('EN');
  });
});
