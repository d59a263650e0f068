import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { Sidebar } from './Sidebar';
import { seedSession } from '../test/helpers';

function renderSidebar(path = '/dashboard/home', screenIds?: number[]) {
  seedSession(screenIds ? { screenIds } : undefined);
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Sidebar open />
    </MemoryRouter>,
  );
}

const expanded = (id: string) => screen.getByTestId(`menu-group-toggle-${id}`).getAttribute('aria-expanded');

describe('sidebar', () => {
  it('shows every granted entry, Users and Roles as main entries after the closed Settings group', () => {
    renderSidebar();
    for (const label of ['Home', 'Data Import', 'Data Processed', 'Extraction Logs', 'Reconcile', 'Tasks', 'Reports', 'Users', 'Roles']) {
      expect(screen.getByText(label)).toBeTruthy();
    }
    expect(expanded('settings')).toBe('false');
    expect(screen.queryByTestId('menu-group-toggle-administration')).toBeNull();
    expect(screen.queryByText('Bank Settings')).toBeNull();
    const labels = [...screen.getByTestId('sidebar-menu').querySelectorAll('a, button')].map((e) => e.textContent);
    expect(labels.slice(-3)).toEqual(['Settings', 'Users', 'Roles']);
  });

  it('keeps Settings open while Users is chosen', () => {
    renderSidebar('/dashboard/cera-settings');
    expect(expanded('settings')).toBe('true');
    fireEvent.click(screen.getByText('Users'));
    expect(expanded('settings')).toBe('true');
    expect(screen.getByText('Bank Settings')).toBeTruthy();
  });

  it('opens the group that holds the active route', () => {
    renderSidebar('/dashboard/cera-settings');
    expect(expanded('settings')).toBe('true');
    expect(screen.getByText('Exchange Rates').closest('a')?.className).toContain('is-active');
  });

  it('shows only the entries the roles grant', () => {
    renderSidebar('/dashboard/financialdocument', [2, 9, 12]);
    const links = [...screen.getByTestId('sidebar-menu').querySelectorAll('a, button')].map((e) => e.textContent);
    expect(links).toEqual(['Data Import', 'Extraction Logs', 'Settings']);
    fireEvent.click(screen.getByTestId('menu-group-toggle-settings'));
    expect([...screen.getByTestId('menu-group-items-settings').querySelectorAll('a')].map((e) => e.textContent)).toEqual([
      'Exchange Rates',
    ]);
  });
});
