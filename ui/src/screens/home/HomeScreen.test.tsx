import { beforeEach, describe, expect, it, vi } from 'vitest';
import { configure, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { seedSession } from '../../test/helpers';
import type { HomeFigures } from './home';
import HomeScreen from './HomeScreen';

configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 20_000 });

const mocks = vi.hoisted(() => ({ getQuiet: vi.fn() }));
vi.mock('../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../api/client')>();
  return { ...actual, api: { ...actual.api, getQuiet: (path: string) => mocks.getQuiet(path) } };
});
// jsdom has no layout for the chart; the browser test covers it.
vi.mock('./UnmatchedTrendChart', () => ({ default: () => <div data-testid="trend-stub" /> }));

const amount = (count: number, a: string) => ({ count, amount: a });

function figures(month: string, more: Partial<HomeFigures> = {}): HomeFigures {
  return { month, from: `${month}-01`, to: `${month}-31`, computedAt: '2026-03-10T08:00:00Z', ...more };
}

function renderScreen() {
  return render(
    <MemoryRouter initialEntries={['/dashboard/home']}>
      <HomeScreen />
    </MemoryRouter>,
  );
}

beforeEach(() => {
  localStorage.clear();
  seedSession();
  mocks.getQuiet.mockReset();
});

describe('home screen', () => {
  it('shows the permitted figures with their links, in the reader\'s format', async () => {
    mocks.getQuiet.mockImplementation(async (path: string) =>
      figures(new URLSearchParams(path.split('?')[1]).get('month') ?? '', {
        levels: [{ level: 1, slug: 'ticket-transaction', matched: amount(1975, '98765.40'), partial: amount(20, '5.00'), unmatched: amount(5, '1.25'), matchRate: '98.8', noRate: 0 }],
        unmatchedTrend: [],
        oldestUnmatched: [],
        lastRuns: [],
        tasks: { open: 3, byStatus: [{ status: 1, count: 2 }, { status: 2, count: 1 }], byAssignee: [{ userId: 7, name: 'Ann Lee', count: 3 }] },
      }),
    );
    renderScreen();
    expect((await screen.findByTestId('home-level-1-rate')).textContent).toContain('98.8 %');
    expect(screen.getByTestId('home-level-1-matched-count').textContent).toBe('1,975');
    expect(screen.getByTestId('home-level-1-link').getAttribute('href')).toMatch(/^\/dashboard\/bank-settlement\?tab=0&fromDate=\d{4}-\d\d-01/);
    expect(screen.getByTestId('home-tasks-open').textContent).toContain('3');
    expect(screen.getByTestId('home-tasks-link').getAttribute('href')).toBe('/dashboard/tasks');
    expect(screen.queryByTestId('home-imports')).toBeNull();
    expect(screen.queryByTestId('home-bank')).toBeNull();
    expect(mocks.getQuiet.mock.calls[0]![0]).toMatch(/^\/home\?month=\d{4}-\d\d$/);
  });

  it('says when the roles grant no figures, and when loading fails', async () => {
    mocks.getQuiet.mockResolvedValueOnce(figures(new Date().toISOString().slice(0, 7), { levels: null, tasks: null }));
    const { unmount } = renderScreen();
    expect(await screen.findByTestId('home-nothing')).toBeTruthy();
    unmount();
    mocks.getQuiet.mockRejectedValueOnce(new Error('down'));
    renderScreen();
    expect((await screen.findByTestId('home-error')).textContent).toBe('Failed to load the figures.');
  });
});
