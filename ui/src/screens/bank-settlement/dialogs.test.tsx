import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { ToastProvider } from '../../shell/toast';
import { created, fail, mockApi, ok } from '../../test/apiMock';
import en from '../../i18n/en.json';
import { LEVELS } from './recon';
import { ManualReconcileDialog } from './ManualReconcileDialog';
import { UndoMatchDialog } from './UndoMatchDialog';
import { CreateTaskFromDetails } from './CreateTaskFromDetails';
import { DetailsDialog } from './DetailsDialog';

const wrap = (node: ReactNode) => render(<ToastProvider>{node}</ToastProvider>);
const filters = { fromDate: '2026-11-01', toDate: '2026-11-24', currency: [], provider: [], clientUniqueId: '' };

const bank = { id: 5, BankAccount: 'SE4550000000058398257466', ReconciliationAmountLocal: '1000.00', Charges: '0', Currency: 'SEK', BookedDate: '2026-11-03' };
const payout = { id: 9, PayoutID: 'PO-NUVEI-20261101-SEK', SettlementAmount: '1000.00', SettlementCurrency: 'SEK', SettlementSummaryDate: '2026-11-01', SettlementCount: 3 };
const ticket = { id: 1, ticket_number: '1254400000001', trans_date: '2026-11-01', local_fare_currency: 'USD', transaction_code: 'TKTT', SaleAmount: '250.00' };
const transaction = { id: 2, ClientUniqueID: '1254400000001', ProcessingDate: '2026-11-01', currency: 'USD', TransactionAmount: '250.00' };

function pick(testId: string, text: string) {
  fireEvent.click(within(screen.getByTestId(testId)).getByText(text).closest('.rdg-cell')!);
}

describe('ManualReconcileDialog', () => {
  it('settlements vs bank: warns without both rows, sends {settlement, bank}, offers Match anyway on a currency refusal', async () => {
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': ok({ item1: [bank], item2: [payout], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/settlement-bank/match': [
        [400, { succeeded: false, error: 'The amounts differ...', field: 'force', code: 'recon.outsideCurrencyTolerance', params: { difference: '12.00', tolerance: '1', provider: 'Nuvei' } }],
        created({ id: 44, status: 'matched' }),
      ],
    });
    const onClose = vi.fn();
    const onReconciled = vi.fn();
    wrap(<ManualReconcileDialog level={LEVELS[2]!} filters={filters} visible onClose={onClose} onReconciled={onReconciled} />);
    await screen.findByText('SE4550000000058398257466');
    expect(api.callsTo('POST', '/api/recon/settlement-bank/candidates')[0]!.body).toEqual(filters);
    expect(screen.queryByTestId('manual-investigate')).toBeNull();

    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await screen.findByText(en.recon.toasts.selectBoth['settlement-bank']);
    pick('manual-grid-item1', 'SE4550000000058398257466');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')).toHaveLength(0);

    pick('manual-grid-item2', 'PO-NUVEI-20261101-SEK');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    const refusal: string = 'The amounts differ by 12.00 in USD, beyond the currency tolerance of 1% of Nuvei; choose Match anyway to match regardless.';
    expect((await screen.findByTestId('manual-failure')).textContent).toContain(refusal);
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')[0]!.body).toEqual({ settlement: payout, bank });
    expect(onClose).not.toHaveBeenCalled();

    fireEvent.click(screen.getByTestId('manual-force'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')[1]!.body).toEqual({ settlement: payout, bank, force: true });
    expect(onReconciled).toHaveBeenCalled();
    await screen.findByText(en.recon.toasts.reconciled);
  });

  it('tickets vs transactions: Investigation uses its own call; a pair matched meanwhile keeps the dialog open with the reason', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/candidates': ok({ item1: [ticket], item2: [transaction], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/ticket-transaction/investigate': created({ id: 7, status: 'investigation' }),
      'POST /api/recon/ticket-transaction/match': [
        409,
        { succeeded: false, error: 'The ticket 1 is already matched', code: 'recon.alreadyMatched', params: { kind: 'ticket', id: 1, matchId: 3, by: 'bo' } },
      ],
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={LEVELS[0]!} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('TKTT');
    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item2', '2');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    expect((await screen.findByTestId('manual-failure')).textContent).toContain('The ticket 1 is already matched (match 3, by bo); undo that match first.');
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/match')[0]!.body).toEqual({ ticketId: 1, transactionId: 2 });
    expect(screen.queryByTestId('manual-force')).toBeNull();
    expect(onClose).not.toHaveBeenCalled();

    fireEvent.click(screen.getByTestId('manual-investigate'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/investigate')[0]!.body).toEqual({ ticketId: 1, transactionId: 2 });
  });

  it('a failed candidates load says so (the server text, else the spec fallback)', async () => {
    mockApi({ 'POST /api/recon/transaction-settlement/candidates': [503, { succeeded: false }] });
    wrap(<ManualReconcileDialog level={LEVELS[1]!} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    expect((await screen.findAllByText(en.recon.toasts.loadFailed)).length).toBeGreaterThan(0);
  });
});

describe('UndoMatchDialog', () => {
  it('asks for a reason before the call, sends it, and reports the undo', async () => {
    const api = mockApi({ 'DELETE /api/recon/ticket-transaction/match/7': ok({ id: 7 }) });
    const onUndone = vi.fn();
    const onClose = vi.fn();
    wrap(<UndoMatchDialog target={{ slug: 'ticket-transaction', matchId: 7, what: 'Ticket 1254400000001' }} onClose={onClose} onUndone={onUndone} />);
    expect(screen.getByText(/Undo match 7 of Ticket 1254400000001\?/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('undo-confirm'));
    expect(await screen.findByText(en.recon.undo.reasonRequired)).toBeTruthy();
    expect(api.calls).toHaveLength(0);
    fireEvent.change(screen.getByTestId('undo-reason'), { target: { value: '  wrong pair ' } });
    fireEvent.click(screen.getByTestId('undo-confirm'));
    await waitFor(() => expect(onUndone).toHaveBeenCalled());
    expect(api.callsTo('DELETE', '/api/recon/ticket-transaction/match/7')[0]!.body).toEqual({ reason: 'wrong pair' });
    expect(onClose).toHaveBeenCalled();
    await screen.findByText(en.recon.toasts.undone);
  });

  it('stays open with the server text when the match was undone meanwhile', async () => {
    mockApi({
      'DELETE /api/recon/settlement-bank/match/8': [409, { succeeded: false, error: 'Match 8 was already undone by bo.', code: 'recon.alreadyUndone', params: { matchId: 8, by: 'bo' } }],
    });
    const onClose = vi.fn();
    wrap(<UndoMatchDialog target={{ slug: 'settlement-bank', matchId: 8, what: 'Payout PO-1' }} onClose={onClose} onUndone={() => {}} />);
    fireEvent.change(screen.getByTestId('undo-reason'), { target: { value: 'duplicate' } });
    fireEvent.click(screen.getByTestId('undo-confirm'));
    expect((await screen.findAllByText('Match 8 was already undone by bo.')).length).toBeGreaterThan(0);
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('CreateTaskFromDetails', () => {
  const links = { ticketIds: [1, 2], transactionIds: [3], context: 'USD · 01-11-2026 · CC · US' };
  const remarks = 'Created from the reconciliation details (USD · 01-11-2026 · CC · US): 2 tickets and 1 transactions were linked automatically.';

  it('opens the shared task editor pre-filled from the details; a refusal keeps the form, then the task is created with its links', async () => {
    const api = mockApi({
      'GET /api/Users/list': ok([{ userId: 4, userName: 'bo' }]),
      'POST /api/TaskTT/with-items': [fail(404, 'Not Found'), created({ id: 12, taskName: 'Reconciliation Review (2T / 1X)' })],
    });
    wrap(<CreateTaskFromDetails links={links} onClose={() => {}} />);
    expect((screen.getByTestId('task-name') as HTMLInputElement).value).toBe('Reconciliation Review (2T / 1X)');
    expect((screen.getByTestId('task-remarks') as HTMLTextAreaElement).value).toBe(remarks);
    await waitFor(() => expect(api.callsTo('GET', '/api/Users/list')).toHaveLength(1));
    fireEvent.click(screen.getByTestId('task-save'));
    await waitFor(() => expect(api.callsTo('POST', '/api/TaskTT/with-items')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/TaskTT/with-items')[0]!.body).toMatchObject({
      taskName: 'Reconciliation Review (2T / 1X)',
      isStatus: 1,
      remarks,
      ticketIds: [1, 2],
      transactionIds: [3],
    });
    expect((await screen.findAllByText('Not Found')).length).toBeGreaterThan(0);
    expect(screen.getByTestId('task-name')).toBeTruthy();
    fireEvent.click(screen.getByTestId('task-save'));
    await screen.findByTestId('task-created');
  });

  it('renders nothing without links', () => {
    mockApi({});
    wrap(<CreateTaskFromDetails links={null} onClose={() => {}} />);
    expect(screen.queryByTestId('task-editor-dialog')).toBeNull();
  });
});

describe('DetailsDialog', () => {
  const row = { RowKey: 'k', SalesCurrency: 'USD', TicketDate: '2026-11-03', PaymentType: 'CC', CountryCode: 'US' };

  it('reads the records of the row, shows their status, undoes a match and raises a task with their links', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/details': ok({
        item1: [
          { id: 1, TicketNumber: '1254400000001', TransactionDate: '2026-11-03', Currency: 'USD', TotalFareWithFees: '250.00', MatchStatus: 'matched', MatchId: 5 },
          { id: 2, TicketNumber: '1254400000002', TransactionDate: '2026-11-03', Currency: 'USD', TotalFareWithFees: '99.00', MatchStatus: null, MatchId: null },
        ],
        item2: [{ id: 3, ClientUniqueID: '1254400000001', ProcessingDate: '2026-11-03', currency: 'USD', Amount: '250.00', MatchStatus: 'matched', MatchId: 5 }],
      }),
    });
    const onUndo = vi.fn();
    const onCreateTask = vi.fn();
    const onChain = vi.fn();
    wrap(<DetailsDialog level={LEVELS[0]!} row={row} reloadToken={0} onClose={() => {}} onChain={onChain} onUndo={onUndo} onCreateTask={onCreateTask} />);
    await screen.findByText('1254400000002');
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/details')[0]!.body).toEqual({ Currency: 'USD', SelectDate: '2026-11-03', PaymentType: 'CC', CountryCode: 'US' });
    expect([...screen.getByTestId('details-grid-1').querySelectorAll('[data-testid="record-status"]')].map((e) => e.textContent)).toEqual(['Matched', 'Unmatched']);
    expect(screen.queryByTestId('details-undo-ticket-2')).toBeNull();
    fireEvent.click(screen.getByTestId('details-undo-ticket-1'));
    expect(onUndo).toHaveBeenCalledWith({ slug: 'ticket-transaction', matchId: 5, what: 'Ticket 1254400000001' });
    fireEvent.click(screen.getByTestId('details-chain-transaction-3'));
    expect(onChain).toHaveBeenCalledWith('transaction', 3);
    fireEvent.click(screen.getByTestId('details-create-task'));
    expect(onCreateTask).toHaveBeenCalledWith({ ticketIds: [1, 2], transactionIds: [3], context: 'USD · 03-11-2026 · CC · US' });
  });

  it('a failed load says so and shows no records', async () => {
    mockApi({ 'POST /api/recon/transaction-settlement/details': [500, { succeeded: false }] });
    wrap(
      <DetailsDialog
        level={LEVELS[1]!}
        row={{ TransCurrency: 'EUR', TransDate: '2026-11-03', ProviderActor: 'Amex' }}
        reloadToken={0}
        onClose={() => {}}
        onChain={() => {}}
        onUndo={() => {}}
        onCreateTask={() => {}}
      />,
    );
    expect((await screen.findAllByText(en.recon.toasts.detailsFailed)).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('details-create-task')).toBeNull();
  });
});
