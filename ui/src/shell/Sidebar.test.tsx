import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { Sidebar } from './Sidebar';
import { seedSession } from '../test/helpers';
import { mockApi } from '../test/apiMock';
import { grantedScreens } from '../test/metadataScreens';
import { act } from 'react';
import { clearSession, updateCurrentUser } from '../auth/session';

let api: ReturnType<typeof mockApi>;

beforeEach(() => {
  // Each test is a new session, so the metadata screens are read again (once per session).
  clearSession();
  api = mockApi({ 'GET /api/meta/screens': grantedScreens });
});

function renderSidebar(path = '/dashboard/home', screenIds?: number[]) {
  seedSession(screenIds ? { screenIds } : undefined);
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Sidebar open />
    </MemoryRouter>,
  );
}

const expanded = (id: string) => screen.getByTestId(`menu-group-toggle-${id}`).getAttribute('aria-expanded');
const entries = () => [...screen.getByTestId('sidebar-menu').querySelectorAll('a, button')].map((e) => e.textContent);
const hrefOf = (label: string) => screen.getByText(label).closest('a')?.getAttribute('href');

describe('sidebar', () => {
  it('shows every granted entry, Users and Roles as main entries after the closed Settings group', async () => {
    renderSidebar();
    // The metadata screens' entries join once the server has listed them.
    await screen.findByText('Roles');
    expect(entries()).toEqual([
      'Home',
      'Data Import',
      'Data Processed',
      'Extraction Logs',
      'Reconcile',
      'Open Items',
      'Tasks',
      'Reports',
      'Settings',
      'Users',
      'Roles',
    ]);
    expect(expanded('settings')).toBe('false');
    expect(screen.queryByTestId('menu-group-toggle-administration')).toBeNull();
    expect(screen.queryByText('Bank Settings')).toBeNull();
    // Metadata screens live at dashboard/<route>.
    expect(hrefOf('Users')).toBe('/dashboard/userslist');
    expect(hrefOf('Data Processed')).toBe('/dashboard/csvprocessed');
    expect(hrefOf('Open Items')).toBe('/dashboard/open-items');
  });

  it("places Approvals after Reports and the Audit Trail after Roles when the roles grant them", async () => {
    renderSidebar('/dashboard/home', [1, 3, 5, 13, 15, 16, 17]);
    await screen.findByText('Audit Trail');
    expect(entries()).toEqual(['Home', 'Reconcile', 'Open Items', 'Reports', 'Approvals', 'Users', 'Roles', 'Audit Trail']);
    expect(hrefOf('Approvals')).toBe('/dashboard/approvals');
    expect(hrefOf('Audit Trail')).toBe('/dashboard/audit');
  });

  it('keeps Settings open while Users is chosen', async () => {
    renderSidebar('/dashboard/cera-settings');
    await waitFor(() => expect(expanded('settings')).toBe('true'));
    fireEvent.click(screen.getByText('Users'));
    expect(screen.getByText('Users').closest('a')?.className).toContain('is-active');
    expect(expanded('settings')).toBe('true');
    expect(screen.getByText('Bank Settings')).toBeTruthy();
  });

  it('opens the group that holds the active route', async () => {
    renderSidebar('/dashboard/cera-settings');
    await waitFor(() => expect(expanded('settings')).toBe('true'));
    expect([...screen.getByTestId('menu-group-items-settings').querySelectorAll('a')].map((e) => e.textContent)).toEqual([
      'Bank Settings',
      'Exchange Rates',
      'Country List',
      'Configuration Settings',
    ]);
    expect(screen.getByText('Exchange Rates').closest('a')?.className).toContain('is-active');
    expect(hrefOf('Exchange Rates')).toBe('/dashboard/cera-settings');
  });

  // A language switch changes the session but not the grants: the metadata entries stay, and are
  // not read again (a browser test caught the menu shrinking to the hand-written entries then).
  it('keeps the metadata entries through a language switch', async () => {
    renderSidebar('/dashboard/financialdocument', [2, 9, 12]);
    await screen.findByText('Extraction Logs');
    act(() => updateCurrentUser({ languageCode: 'sv' }));
    expect(entries()).toEqual(['Data Import', 'Extraction Logs', 'Settings']);
    expect(api.callsTo('GET', '/api/meta/screens')).toHaveLength(1);
  });

  it('shows only the entries the roles grant', async () => {
    renderSidebar('/dashboard/financialdocument', [2, 9, 12]);
    await screen.findByText('Extraction Logs');
    expect(entries()).toEqual(['Data Import', 'Extraction Logs', 'Settings']);
    fireEvent.click(screen.getByTestId('menu-group-toggle-settings'));
    expect([...screen.getByTestId('menu-group-items-settings').querySelectorAll('a')].map((e) => e.textContent)).toEqual([
      'Exchange Rates',
    ]);
  });
});
