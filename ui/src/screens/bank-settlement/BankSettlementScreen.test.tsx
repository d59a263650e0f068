import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import { clearMetaCache } from '../../engine/api';
import { reportViewFixture } from '../../engine/testFixtures';
import en from '../../i18n/en.json';
import type { GridRequest, ViewMeta } from '../../engine/types';
import BankSettlementScreen from './BankSettlementScreen';

function view(name: string): ViewMeta {
  return reportViewFixture(name, ['fromDate', 'toDate', 'currency', 'provider', 'clientUniqueId'], [
    { field: 'RowKey', type: 'text', label: 'RowKey', hidden: true, sortable: true, ops: [] },
    { field: 'Day', type: 'text', label: 'Day', sortable: true, ops: [] },
  ]);
}

function mockScreen(extra: Record<string, Parameters<typeof mockApi>[0][string]> = {}) {
  clearMetaCache();
  return mockApi({
    'GET /api/recon/currencies': ok([{ Id: 1, Code: 'EUR' }]),
    'GET /api/recon/providers': ok([{ Id: 1, TransProvider: 'Nuvei' }]),
    'GET /api/meta/views/VW_ReconTicketTransaction': ok(view('VW_ReconTicketTransaction')),
    'GET /api/meta/views/VW_ReconTransactionSettlement': ok(view('VW_ReconTransactionSettlement')),
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
    await screen.findByText('Auto Reconcile completed successfully. 5 matched, 1 partial, 2 left unmatched.');
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBe(calls + 1));
    await waitFor(() => expect((screen.getByTestId('recon-auto-0') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId('recon-auto-0'));
    await screen.findByText('An automatic reconcile of this level is already running (run 4, started by bo). Wait for it to finish.');
  });
});
