import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, RouterProvider, createMemoryRouter } from 'react-router-dom';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import { clearMetaCache } from '../../engine/api';
import { reportViewFixture } from '../../engine/testFixtures';
import en from '../../i18n/en.json';
import type { GridRequest, ViewMeta } from '../../engine/types';
import BankSettlementScreen from './BankSettlementScreen';
import { FOURTH_LEVEL, TEST_LEVELS } from './levelFixtures';
import type { LevelDef } from './recon';

// The screen renders in three steps (levels, view metadata, rows); on a busy two-core machine
// each can take a second or more.
vi.setConfig({ testTimeout: 30_000 });

function view(name: string): ViewMeta {
  return reportViewFixture(name, ['fromDate', 'toDate', 'currency', 'provider', 'clientUniqueId'], [
    { field: 'RowKey', type: 'text', label: 'RowKey', hidden: true, sortable: true, ops: [] },
    { field: 'Day', type: 'text', label: 'Day', sortable: true, ops: [] },
  ]);
}

function mockScreen(extra: Record<string, Parameters<typeof mockApi>[0][string]> = {}, levels: LevelDef[] = TEST_LEVELS) {
  clearMetaCache();
  return mockApi({
    'GET /api/recon/levels': ok(levels),
    'GET /api/recon/currencies': ok([{ Id: 1, Code: 'EUR' }]),
    'GET /api/recon/providers': ok([{ Id: 1, TransProvider: 'Nuvei' }]),
    'GET /api/meta/views/VW_ReconTicketTransaction': ok(view('VW_ReconTicketTransaction')),
    'GET /api/meta/views/VW_ReconTransactionSettlement': ok(view('VW_ReconTransactionSettlement')),
    'GET /api/meta/views/VW_ReconSettlementBank': ok(view('VW_ReconSettlementBank')),
    'POST /api/grid': ok({ dataList: [{ RowKey: 'a', Day: 'one', StatusNumber: 1 }], totalCount: 1 }),
    ...extra,
  });
}

const renderScreen = () =>
  render(
    <ToastProvider>
      <MemoryRouter>
        <BankSettlementScreen />
      </MemoryRouter>
    </ToastProvider>,
  );

const lastGrid = (api: ReturnType<typeof mockApi>) => api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest;

describe('BankSettlementScreen', () => {
  it('a tab whose dates lie in closed months says who closed them and when: its level\'s closings and every level\'s, not reopened ones', async () => {
    localStorage.setItem('dashboardFilters', JSON.stringify({ fromDate: '2026-09-15', toDate: '2026-10-31', currency: [], provider: [], clientUniqueId: '' }));
    const closing = { closedBy: 'maria', closedOn: '2026-11-27T10:00:00Z', reopenedBy: null, reopenedOn: null, reopenReason: null, summary: [] };
    mockScreen({
      'GET /api/periods': ok([
        { ...closing, id: 1, month: '2026-10', level: '' },
        { ...closing, id: 2, month: '2026-09', level: 'ticket-transaction', closedBy: 'bo' },
        { ...closing, id: 3, month: '2026-09', level: 'settlement-bank' },
        { ...closing, id: 4, month: '2026-08', level: '' },
        { ...closing, id: 5, month: '2026-10', level: 'ticket-transaction', reopenedBy: 'bo', reopenedOn: '2026-11-28T10:00:00Z', reopenReason: 'late' },
      ]),
    });
    renderScreen();
    const note = await screen.findByTestId('closed-periods');
    expect(note.getAttribute('role')).toBe('status');
    expect(note.textContent).toBe('09-2026 closed (Tickets vs Transactions) by bo on 27-11-2026 · 10-2026 closed (all levels) by maria on 27-11-2026');
    // the bank tab: its own closing and every level's
    fireEvent.click(screen.getByTestId('recon-tab-2'));
    await waitFor(() =>
      expect(within(screen.getByTestId('grid-VW_ReconSettlementBank')).getByTestId('closed-periods').textContent).toBe(
        '09-2026 closed (Settlements vs Bank) by maria on 27-11-2026 · 10-2026 closed (all levels) by maria on 27-11-2026',
      ),
    );
  });

  it('opens with the filter area open and the month to date when nothing is saved', async () => {
    const api = mockScreen();
    renderScreen();
    await screen.findByTestId('row-status');
    const today = new Date();
    const first = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-01`;
    expect(lastGrid(api).ViewName).toBe('VW_ReconTicketTransaction');
    expect(lastGrid(api).Params).toMatchObject({ fromDate: first, currency: [], provider: [], clientUniqueId: '' });
    expect(screen.getByTestId('filter-apply')).toBeTruthy();
    expect(screen.getByTestId('screen-title').textContent).toBe(en.RECON.BANKSETTLEMENT);
  });

  it('restores saved filters (area closed) and the saved tab', async () => {
    localStorage.setItem('dashboardFilters', JSON.stringify({ fromDate: '2026-10-01', toDate: '2026-10-31', currency: ['EUR'], provider: [], clientUniqueId: '' }));
    localStorage.setItem('bankSettlementTabIndex', '1');
    const api = mockScreen();
    renderScreen();
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBeGreaterThan(0));
    expect(lastGrid(api).ViewName).toBe('VW_ReconTransactionSettlement');
    expect(lastGrid(api).Params).toMatchObject({ fromDate: '2026-10-01', toDate: '2026-10-31', currency: ['EUR'] });
    expect(screen.queryByTestId('filter-apply')).toBeNull();
    expect(screen.getByTestId('recon-filters-summary').textContent).toContain('EUR');
  });

  it('a link followed while the screen is open shows what it says: tab, dates, currency (back and forward too)', async () => {
    const api = mockScreen();
    const router = createMemoryRouter([{ path: '/dashboard/bank-settlement', element: <BankSettlementScreen /> }], {
      initialEntries: ['/dashboard/bank-settlement?tab=0&fromDate=2026-10-01&toDate=2026-10-31'],
    });
    render(
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>,
    );
    await waitFor(() => expect(lastGrid(api).Params).toMatchObject({ fromDate: '2026-10-01', toDate: '2026-10-31' }));
    expect(lastGrid(api).ViewName).toBe('VW_ReconTicketTransaction');
    await router.navigate('/dashboard/bank-settlement?tab=2&fromDate=2026-09-01&toDate=2026-09-30&currency=EUR');
    await waitFor(() => expect(lastGrid(api).ViewName).toBe('VW_ReconSettlementBank'));
    expect(lastGrid(api).Params).toMatchObject({ fromDate: '2026-09-01', toDate: '2026-09-30', currency: ['EUR'] });
    await router.navigate(-1);
    await waitFor(() => expect(lastGrid(api).ViewName).toBe('VW_ReconTicketTransaction'));
    expect(lastGrid(api).Params).toMatchObject({ fromDate: '2026-10-01', toDate: '2026-10-31' });
  });

  it('a 12-digit ticket stops Apply with the spec message; no report is asked for', async () => {
    const api = mockScreen();
    renderScreen();
    await screen.findByTestId('row-status');
    const calls = api.callsTo('POST', '/api/grid').length;
    fireEvent.change(screen.getByTestId('filter-ticket'), { target: { value: '125440000001' } });
    fireEvent.click(screen.getByTestId('filter-apply'));
    expect(screen.getByTestId('filter-error').textContent).toBe(en.recon.errors.ticketNumber);
    expect(api.callsTo('POST', '/api/grid').length).toBe(calls);
  });

  it('the bolt button runs the level, reports the counts and reloads; a run already going is named', async () => {
    const api = mockScreen({
      'POST /api/recon/ticket-transaction/auto': [
        ok({ runId: 3, level: 'ticket-transaction', status: 'succeeded', matched: 5, partial: 1, unmatched: 2 }),
        [409, { succeeded: false, error: 'An automatic reconcile ...', code: 'recon.runActive', params: { runId: 4, status: 'running', by: 'bo' } }],
      ],
    });
    renderScreen();
    await screen.findByTestId('row-status');
    const calls = api.callsTo('POST', '/api/grid').length;
    fireEvent.click(screen.getByTestId('recon-auto-0'));
    await screen.findByText('Auto Reconcile completed successfully. 5 matched, 1 within tolerance, 2 left unmatched.');
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBe(calls + 1));
    await waitFor(() => expect((screen.getByTestId('recon-auto-0') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId('recon-auto-0'));
    await screen.findByText('An automatic reconcile of this level is already running (run 4, started by bo). Wait for it to finish.');
  });

  it('reads the levels once and shows one tab per level with its legend and filters; a saved tab past them is fitted', async () => {
    localStorage.setItem('bankSettlementTabIndex', '5');
    const api = mockScreen();
    renderScreen();
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBeGreaterThan(0));
    expect(lastGrid(api).ViewName).toBe('VW_ReconSettlementBank');
    expect(lastGrid(api).Params).toEqual(expect.not.objectContaining({ clientUniqueId: expect.anything() }));
    expect([0, 1, 2].map((i) => screen.getByTestId(`recon-tab-${i}`).textContent)).toEqual([
      en.recon.tabs.ticketTransaction,
      en.recon.tabs.transactionSettlement,
      en.recon.tabs.settlementBank,
    ]);
    expect(screen.queryByTestId('recon-tab-3')).toBeNull();
    // Settlements vs bank applies neither the provider nor the ticket filter.
    expect(screen.queryByTestId('filter-provider')).toBeNull();
    expect(screen.queryByTestId('filter-ticket')).toBeNull();
    expect(screen.getAllByTestId('recon-legend-item').map((e) => e.textContent)).toEqual(['Matched', 'Partly matched', 'Unmatched']);
    fireEvent.click(screen.getByTestId('recon-tab-0'));
    await screen.findByTestId('filter-ticket');
    expect(api.callsTo('GET', '/api/recon/levels')).toHaveLength(1);
  });

  it('a fourth level in the answer is a fourth tab: its report, its legend, its bolt button, its manual dialog and its chain', async () => {
    const api = mockScreen(
      {
        'GET /api/meta/views/VW_ReconTicketSettlement': ok(view('VW_ReconTicketSettlement')),
        'POST /api/grid': ok({ dataList: [{ RowKey: 'r1', Day: 'four', StatusNumber: 1, TicketId: 10 }], totalCount: 1 }),
        'POST /api/recon/ticket-settlement/auto': ok({ runId: 5, level: 'ticket-settlement', status: 'succeeded', matched: 2, partial: 0, unmatched: 1 }),
        'POST /api/recon/ticket-settlement/candidates': ok({
          item1: [{ id: 70, ClientUniqueID: '1254400000001', GrossAmount: '250.00', SettlementBatch: 'B-17' }],
          item2: [{ id: 1, ticket_number: '1254400000001', SaleAmount: '250.00' }],
          item1Total: 1,
          item2Total: 1,
          limit: 500,
        }),
        'GET /api/recon/chain/ticket/10': ok({ start: { kind: 'ticket', id: 10 }, tickets: [{ id: 10, TicketNumber: '1254400000010' }], transactions: [], settlements: [], payouts: [], bankBookings: [], links: [], truncated: false }),
      },
      [...TEST_LEVELS, FOURTH_LEVEL],
    );
    renderScreen();
    fireEvent.click(await screen.findByTestId('recon-tab-3'));
    await waitFor(() => expect(lastGrid(api).ViewName).toBe('VW_ReconTicketSettlement'));
    expect(screen.getByTestId('recon-tab-3').textContent).toBe('Tickets vs Settlements');
    expect(localStorage.getItem('bankSettlementTabIndex')).toBe('3');
    // Its filters: the ticket number, not the provider.
    expect(screen.getByTestId('filter-ticket')).toBeTruthy();
    expect(screen.queryByTestId('filter-provider')).toBeNull();
    expect(lastGrid(api).Params).toMatchObject({ provider: [], clientUniqueId: '' });
    expect(screen.getAllByTestId('recon-legend-item').map((e) => e.textContent)).toEqual(['Matched', en.recon.status.changed, 'Unmatched']);

    fireEvent.click(screen.getByTestId('recon-auto-3'));
    await screen.findByText('Auto Reconcile completed successfully. 2 matched, 0 within tolerance, 1 left unmatched.');
    expect(api.callsTo('POST', '/api/recon/ticket-settlement/auto')).toHaveLength(1);

    fireEvent.click(screen.getByTestId('recon-manual-3'));
    const dialog = await screen.findByTestId('manual-dialog');
    await within(dialog).findByText('B-17');
    expect(within(screen.getByTestId('manual-grid-item1')).getByText('SettlementBatch')).toBeTruthy();
    expect(api.callsTo('POST', '/api/recon/ticket-settlement/candidates')[0]!.body).toMatchObject({ provider: [], clientUniqueId: '' });
    fireEvent.click(screen.getByTestId('manual-cancel'));
    await waitFor(() => expect(screen.queryByTestId('manual-dialog')).toBeNull());

    // A double-click on a row opens the chain from the level's chainFrom field.
    const grid = screen.getByTestId('grid-VW_ReconTicketSettlement');
    fireEvent.doubleClick(within(grid).getByText('four').closest('.rdg-cell')!);
    await screen.findByTestId('chain-card-ticket-10');
    expect(screen.getByTestId('chain-state-ticket-10-4').textContent).toContain('Tickets vs Settlements: Unmatched');
  });

  it('a failed read of the levels says so with the server message', async () => {
    mockScreen({ 'GET /api/recon/levels': [503, { succeeded: false, error: 'The levels are not configured.' }] });
    renderScreen();
    // A toast and the line in place of the tabs.
    await waitFor(() => expect(screen.getAllByText('The levels are not configured.')).toHaveLength(2));
    expect(screen.getByTestId('recon-levels-error').textContent).toBe('The levels are not configured.');
    expect(screen.queryByTestId('recon-tabs')).toBeNull();
  });
});
