import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { seedSession } from '../../test/helpers';
import type { HomeFigures } from './home';
import HomeScreen from './HomeScreen';
import en from '../../i18n/en.json';

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

  it('shows a row per level the figures list, a failed run by its message code, and links each level to its tab', async () => {
    const level = (n: number, slug: string) => ({ level: n, slug, matched: amount(1, '1.00'), partial: amount(0, '0'), unmatched: amount(0, '0'), matchRate: '100.0', noRate: 0 });
    const run = { runId: 0, status: 'succeeded', createdBy: 'bo', createdOn: '2026-03-10T08:00:00Z', finishedOn: '2026-03-10T08:01:00Z', matched: 1, partial: 0, leftUnmatched: 0, rightUnmatched: 0 };
    mocks.getQuiet.mockImplementation(async (path: string) =>
      figures(new URLSearchParams(path.split('?')[1]).get('month') ?? '', {
        levels: [level(1, 'ticket-transaction'), level(2, 'transaction-settlement'), level(3, 'settlement-bank'), level(4, 'ticket-settlement')],
        oldestUnmatched: [{ level: 4, id: 9, date: '2026-03-02', reference: '1254400000009', amount: '10.00', currency: 'USD', ageDays: 8 }],
        lastRuns: [
          { ...run, level: 1, runId: 30 },
          { ...run, level: 4, runId: 31, status: 'failed', error: 'ERROR: could not serialize access (SQLSTATE 40001)', errorCode: 'recon.runCollided', errorParams: {} },
          { ...run, level: 3, runId: 32, status: 'failed', error: 'boom', errorCode: 'recon.runFailed', errorParams: {} },
        ],
      }),
    );
    renderScreen();
    expect((await screen.findByTestId('home-run-4-error')).textContent).toBe(en.recon.errors.runCollided);
    expect(screen.getByTestId('home-run-3-error').textContent).toBe(en.recon.errors.runFailed.replace('{{runId}}', '32'));
    expect(screen.queryByText(/SQLSTATE/)).toBeNull();
    expect(screen.queryByTestId('home-run-1-error')).toBeNull();
    expect(screen.getByTestId('home-run-2').textContent).toContain('Not run yet');
    // A level without a name of its own on Home shows its slug; its links open its tab.
    expect(screen.getByTestId('home-run-4').textContent).toContain('ticket-settlement');
    expect(screen.getByTestId('home-level-4-link').getAttribute('href')).toMatch(/\?tab=3&/);
    expect(screen.getByTestId('home-oldest-row').querySelector('a')!.getAttribute('href')).toBe(
      '/dashboard/bank-settlement?tab=3&fromDate=2026-03-02&toDate=2026-03-02&clientUniqueId=1254400000009',
    );
  });

  it('lists the alerts by kind and message code, and says when there are none', async () => {
    const month = new Date().toISOString().slice(0, 7);
    mocks.getQuiet.mockResolvedValueOnce(
      figures(month, {
        ageing: { open: 10, overdue: 3, buckets: [] },
        alerts: [
          { id: 2, kind: 'fileMissing', raisedOn: '2026-03-10T08:00:00Z', message: 'english', messageCode: 'alert.fileMissing',
            messageParams: { kind: 'settlement', holder: 'Nuvei', by: '09:00', day: '2026-03-10', name: 'nuvei' } },
          { id: 1, kind: 'runFailed', raisedOn: '2026-03-10T07:00:00Z', message: 'boom', messageCode: 'recon.runCollided', messageParams: {} },
        ],
      }),
    );
    const { unmount } = renderScreen();
    const overdue = await screen.findByTestId('home-alert-overdue');
    expect(overdue.textContent).toContain('3 open items are past their SLA');
    expect(overdue.querySelector('a')!.getAttribute('href')).toBe('/dashboard/open-items?tab=openItems&OverdueDays=1..');
    const rows = await screen.findAllByTestId('home-alert');
    expect(rows[0]!.textContent).toContain(en.home.alerts.kinds.fileMissing);
    expect(rows[0]!.textContent).toContain('No settlement file for Nuvei had come by 09:00 on 2026-03-10 (expected: nuvei).');
    expect(rows[1]!.textContent).toContain(en.recon.errors.runCollided);
    expect(screen.getByTestId('home-alerts').querySelector('a')!.getAttribute('href')).toBe('/dashboard/config-settings?tab=schedules');
    unmount();
    mocks.getQuiet.mockResolvedValueOnce(figures(month, { alerts: [] }));
    renderScreen();
    expect((await screen.findByTestId('home-alerts')).textContent).toContain(en.home.alerts.none);
  });

  it('approvals: the waiting count links to the Approvals screen; one\'s own requests say what they asked and how they ended', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const request = { action: 'forcedMatch', whatCode: 'approvals.what.forcedMatch', requestedOn: '2026-03-09T08:00:00Z', decidedBy: null, decidedOn: null, decisionReason: null };
    mocks.getQuiet.mockResolvedValueOnce(
      figures(month, {
        approvals: {
          waiting: 2,
          mine: [
            { ...request, id: 12, status: 'approved', what: 'english 12', whatParams: { left: '1254400000001', right: '877', level: 'ticket-transaction' },
              decidedBy: 'maria', decidedOn: '2026-03-10T09:30:00Z', decisionReason: 'checked with the bank' },
            { ...request, id: 13, status: 'pending', what: 'Adjust ticket 1254400000002 by 10.00 SEK (task 4)', whatCode: '', whatParams: null },
          ],
        },
      }),
    );
    const { unmount } = renderScreen();
    const card = await screen.findByTestId('home-approvals');
    expect(card.querySelector('h2')!.textContent).toBe(en.home.approvals.title);
    const waiting = screen.getByTestId('home-approvals-waiting');
    expect(waiting.textContent).toBe('2 requests wait for your decision');
    expect(waiting.querySelector('a')!.getAttribute('href')).toBe('/dashboard/approvals');
    expect(screen.getByTestId('home-approvals-link').getAttribute('href')).toBe('/dashboard/approvals');
    const [approved, pending] = screen.getAllByTestId('home-approval');
    // the request in the reader's words (its code), else its English text
    expect(approved!.textContent).toContain('Force a match of 1254400000001 with 877 (Tickets vs Transactions), outside the tolerances');
    expect(approved!.textContent).toContain('checked with the bank');
    expect(approved!.textContent).toMatch(/by maria on 10-03-2026 \d\d:30/);
    expect(approved!.querySelector('.p-tag-success')!.textContent).toBe(en.approvals.status.approved);
    expect(pending!.textContent).toContain('Adjust ticket 1254400000002 by 10.00 SEK (task 4)');
    expect(pending!.querySelector('.p-tag-warning')!.textContent).toBe(en.approvals.status.pending);
    expect(pending!.textContent).toMatch(/asked on 09-03-2026/);
    unmount();

    // someone who may not decide: no count, no link, their requests only; with none, no card
    mocks.getQuiet.mockResolvedValueOnce(figures(month, { approvals: { waiting: null, mine: [{ ...request, id: 14, status: 'rejected', what: 'x', whatParams: { left: 'a', right: 'b', level: 'settlement-bank' }, decidedBy: 'bo', decidedOn: '2026-03-10T09:30:00Z', decisionReason: 'not the same payout' }] } }));
    const second = renderScreen();
    await screen.findByTestId('home-approvals');
    expect(screen.queryByTestId('home-approvals-waiting')).toBeNull();
    expect(screen.queryByTestId('home-approvals-link')).toBeNull();
    expect(screen.getByTestId('home-approval').querySelector('.p-tag-danger')!.textContent).toBe(en.approvals.status.rejected);
    second.unmount();
    mocks.getQuiet.mockResolvedValueOnce(figures(month, { tasks: { open: 0, byStatus: [], byAssignee: [] }, approvals: { waiting: null, mine: [] } }));
    renderScreen();
    await screen.findByTestId('home-tasks');
    expect(screen.queryByTestId('home-approvals')).toBeNull();
  });
});
