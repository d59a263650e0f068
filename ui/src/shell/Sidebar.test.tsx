import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { Sidebar } from './Sidebar';

function renderSidebar(path = '/dashboard/home') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Sidebar open />
    </MemoryRouter>,
  );
}

const expanded = (id: string) => screen.getByTestId(`menu-group-toggle-${id}`).getAttribute('aria-expanded');

describe('sidebar', () => {
  it('shows every top-level entry and starts with both groups closed on home', () => {
    renderSidebar();
    for (const label of ['Home', 'Data Import', 'Data Processed', 'Extraction Logs', 'Reconcile', 'Tasks', 'Reports']) {
      expect(screen.getByText(label)).toBeTruthy();
    }
    expect(expanded('settings')).toBe('false');
    expect(expanded('administration')).toBe('false');
    expect(screen.queryByText('Bank Settings')).toBeNull();
  });

  it('keeps only one group open at a time', () => {
    renderSidebar();
    fireEvent.click(screen.getByTestId('menu-group-toggle-settings'));
    expect(expanded('settings')).toBe('true');
    for (const label of ['Bank Settings', 'Exchange Rates', 'Country List', 'Configuration Settings']) {
      expect(screen.getByText(label)).toBeTruthy();
    }

    fireEvent.click(screen.getByTestId('menu-group-toggle-administration'));
    expect(expanded('administration')).toBe('true');
    expect(expanded('settings')).toBe('false');
    expect(screen.queryByText('Bank Settings')).toBeNull();
    expect(screen.getByText('Users')).toBeTruthy();
    expect(screen.getByText('Roles')).toBeTruthy();

    fireEvent.click(screen.getByTestId('menu-group-toggle-administration'));
    expect(expanded('administration')).toBe('false');
  });

  it('opens the group that holds the active route', () => {
    renderSidebar('/dashboard/cera-settings');
    expect(expanded('settings')).toBe('true');
    expect(screen.getByText('Exchange Rates').closest('a')?.className).toContain('is-active');
  });

  it('opens Administration on an add/edit user route', () => {
    renderSidebar('/dashboard/users/edit/7');
    expect(expanded('administration')).toBe('true');
  });
});
