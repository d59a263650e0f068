import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { ToastProvider } from '../../shell/toast';
import { seedSession } from '../../test/helpers';
import { SessionKeys } from '../../auth/session';
import { STORAGE_KEY } from './bankOverviewParams';
import type { BankOverview } from './pivot';
import ReportsScreen from './ReportsScreen';

vi.setConfig({ testTimeout: 20_000 });

// The api client, mocked: the bank overview answers from `mocks.postQuiet`.
const mocks = vi.hoisted(() => ({ postQuiet: vi.fn(), getQuiet: vi.fn() }));
vi.mock('../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../api/client')>();
  return {
    ...actual,
    api: { ...actual.api, postQuiet: (path: string, body: unknown) => mocks.postQuiet(path, body), getQuiet: (path: string) => mocks.getQuiet(path) },
  };
});
// jsdom has no layout for the chart; the browser test covers it.
vi.mock('./BankOverviewChart', () => ({ default: () => <div data-testid="chart-stub" /> }));
// The export's download, recorded: the test reads what the screen asks the server to write.
const download = vi.hoisted(() => ({ file: vi.fn() }));
vi.mock('../../engine/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../engine/api')>();
  return { ...actual, downloadFile: (path: string, body: unknown, name: string) => download.file(path, body, name) };
});

const OVERVIEW: BankOverview = {
  parameters: { inOutFilter: 'In', distribRvnFilter: 'Yes', distribDriverFilter: 'All', affectsBalanceFilter: 'Yes', dateGroupingType: 'Month' },
  columns: [
    { key: 'Period', kind: 'period' },
    { key: 'Card', kind: 'actor', actor: 'Card' },
    { key: '(none)', kind: 'actor' },
    { key: 'Total', kind: 'total' },
  ],
  data: [
    { Id: 1, Period: '2026-01', PeriodFrom: '2026-01-01', PeriodTo: '2026-01-31', Card: '1234.50', '(none)': null, Total: '1234.50' },
    { Id: 2, Period: '2026-02', PeriodFrom: '2026-02-01', PeriodTo: '2026-02-28', Card: '5.00', '(none)': '2.00', Total: '7.00' },
    { Id: 3, Period: 'RowTotal', PeriodFrom: '2026-01-01', PeriodTo: '2026-02-28', Card: '1239.50', '(none)': '2.00', Total: '1241.50' },
  ],
};

function renderScreen() {
  return render(
    <ToastProvider>
      <MemoryRouter initialEntries={['/dashboard/reports']}>
        <ReportsScreen />
      </MemoryRouter>
    </ToastProvider>,
  );
}

const periods = () => within(screen.getByTestId('pivot-table')).getAllByTestId('pivot-row').map((r) => r.querySelector('th')?.textContent);

beforeEach(() => {
  localStorage.clear();
  seedSession();
  mocks.postQuiet.mockReset().mockResolvedValue(OVERVIEW);
  mocks.getQuiet.mockReset().mockResolvedValue([]);
});

describe('reports screen', () => {
  it('says which of the months shown are closed, by whom and when; a reader refused the list (403) sees no note', async () => {
    const closing = { closedBy: 'maria', closedOn: '2026-03-02T10:00:00Z', reopenedBy: null, reopenedOn: null, reopenReason: null, summary: [] };
    mocks.getQuiet.mockImplementation(async (path: string) => {
      expect(path).toBe('/periods');
      return [
        { ...closing, id: 1, month: '2026-02', level: 'settlement-bank' },
        { ...closing, id: 2, month: '2026-03', level: '' }, // after the periods shown
      ];
    });
    const { unmount } = renderScreen();
    const note = await screen.findByTestId('closed-periods');
    expect(note.textContent).toBe('02-2026 closed (Settlements vs Bank) by maria on 02-03-2026');
    unmount();
    mocks.getQuiet.mockRejectedValue(new ApiError('You may not open this screen.', 403));
    renderScreen();
    await screen.findByTestId('pivot-table');
    await waitFor(() => expect(mocks.getQuiet).toHaveBeenCalledTimes(2));
    expect(screen.queryByTestId('closed-periods')).toBeNull();
    expect(document.querySelector('.p-toast-message')).toBeNull();
  });

  it('loads with the defaults, no badge, Period first and RowTotal last', async () => {
    renderScreen();
    await screen.findByTestId('pivot-table');
    expect(mocks.postQuiet).toHaveBeenCalledWith('/reports/bank-overview', OVERVIEW.parameters);
    expect(screen.getByTestId('screen-title').textContent).toBe('Reports');
    expect(screen.queryByTestId('reports-filter-badge')).toBeNull();
    // Months in the user's date format without the day (no format: DD-MM-YYYY).
    expect(periods()).toEqual(['01-2026', '02-2026', 'Total']);
    expect(screen.getAllByTestId('pivot-cell-Card')[0]!.textContent).toBe('1,234.50');
    expect(screen.getByTestId('pivot-page').textContent).toBe('Page 1 of 1');
  });

  it('restores the stored parameters: the badge counts those that differ from the defaults', async () => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ inOutFilter: 'Out', dateGroupingType: 'Week', affectsBalanceFilter: 'Sideways' }));
    renderScreen();
    await screen.findByTestId('pivot-table');
    expect(mocks.postQuiet).toHaveBeenCalledWith('/reports/bank-overview', { ...OVERVIEW.parameters, inOutFilter: 'Out', dateGroupingType: 'Week' });
    expect(screen.getByTestId('reports-filter-badge').textContent).toBe('2');
  });

  it('sorts on a header click, toggles, and keeps RowTotal last', async () => {
    renderScreen();
    await screen.findByTestId('pivot-table');
    fireEvent.click(screen.getByTestId('pivot-header-Total'));
    expect(periods()).toEqual(['02-2026', '01-2026', 'Total']);
    fireEvent.click(screen.getByTestId('pivot-header-Total'));
    expect(periods()).toEqual(['01-2026', '02-2026', 'Total']);
  });

  // First user, second round, item 9: the days of a daily overview read yyyy-mm-dd.
  it("shows the days in the user's date format, and finds them as shown", async () => {
    const user = JSON.parse(localStorage.getItem(SessionKeys.currentUser)!) as Record<string, unknown>;
    localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ ...user, dateFormat: 'MM/DD/YYYY HH:mm:ss' }));
    mocks.postQuiet.mockResolvedValue({
      ...OVERVIEW,
      parameters: { ...OVERVIEW.parameters, dateGroupingType: 'Day' },
      data: [
        { Id: 1, Period: '2026-01-30', PeriodFrom: '2026-01-30', PeriodTo: '2026-01-30', Card: '1.00', '(none)': null, Total: '1.00' },
        { Id: 2, Period: '2026-01-31', PeriodFrom: '2026-01-31', PeriodTo: '2026-01-31', Card: '2.00', '(none)': null, Total: '2.00' },
        { Id: 3, Period: 'RowTotal', PeriodFrom: '2026-01-30', PeriodTo: '2026-01-31', Card: '3.00', '(none)': null, Total: '3.00' },
      ],
    });
    renderScreen();
    await screen.findByTestId('pivot-table');
    expect(periods()).toEqual(['01/30/2026', '01/31/2026', 'Total']);
    fireEvent.change(screen.getByTestId('pivot-filter'), { target: { value: '01/31' } });
    expect(periods()).toEqual(['01/31/2026', 'Total']);
    // the export writes the periods shown, as they are shown
    fireEvent.click(screen.getByTestId('pivot-export'));
    await waitFor(() => expect(download.file).toHaveBeenCalled());
    const [path, body] = download.file.mock.calls.at(-1)! as [string, { periods: string[]; periodLabels: Record<string, string> }];
    expect(path).toBe('/reports/bank-overview/export');
    expect(body.periods).toEqual(['2026-01-31', 'RowTotal']);
    expect(body.periodLabels).toEqual({ '2026-01-31': '01/31/2026' });
  });

  it('links a cell to the bookings it sums when the user may open them', async () => {
    renderScreen();
    await screen.findByTestId('pivot-table');
    const link = screen.getAllByTestId('pivot-cell-Card')[0]!.querySelector('a');
    expect(link?.getAttribute('href')).toContain('/dashboard/csvprocessed?tab=bankFiles&BookedDate=2026-01-01..2026-01-31');
  });

  it("says 'No data found.' and 'Failed to load bank overview.'", async () => {
    mocks.postQuiet.mockResolvedValueOnce({ ...OVERVIEW, data: [] });
    const { unmount } = renderScreen();
    expect((await screen.findByTestId('pivot-empty')).textContent).toBe('No data found.');
    unmount();
    mocks.postQuiet.mockRejectedValueOnce(new ApiError('boom', 500));
    renderScreen();
    await waitFor(() => expect(screen.getByTestId('pivot-error').textContent).toBe('Failed to load bank overview.'));
  });
});
