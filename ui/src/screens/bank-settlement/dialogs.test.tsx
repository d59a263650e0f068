import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { ToastProvider } from '../../shell/toast';
import { created, fail, mockApi, ok } from '../../test/apiMock';
import en from '../../i18n/en.json';
import { FOURTH_LEVEL, testLevel } from './levelFixtures';
import { ManualReconcileDialog } from './ManualReconcileDialog';
import { UndoMatchDialog, type UndoTarget } from './UndoMatchDialog';
import { SessionKeys } from '../../auth/session';
import { CreateTaskFromDetails, type TaskLinks } from './CreateTaskFromDetails';
import { DetailsDialog } from './DetailsDialog';

// Dialogs with two data grids render slowly on a busy two-core machine.
vi.setConfig({ testTimeout: 20_000 });

const wrap = (node: ReactNode) => render(<ToastProvider>{node}</ToastProvider>);
const filters = { fromDate: '2026-11-01', toDate: '2026-11-24', currency: [], provider: [], clientUniqueId: '' };

const bank = { id: 5, BankAccount: 'SE4550000000058398257466', ReconciliationAmountLocal: '1000.00', Charges: '0', Currency: 'SEK', BookedDate: '2026-11-03' };
const payout = { id: 9, PayoutID: 'PO-NUVEI-20261101-SEK', SettlementAmount: '1000.00', SettlementCurrency: 'SEK', SettlementSummaryDate: '2026-11-01', SettlementCount: 3 };
const ticket = { id: 1, ticket_number: '1254400000001', trans_date: '2026-11-01', local_fare_currency: 'USD', transaction_code: 'TKTT', SaleAmount: '250.00' };
const transaction = { id: 2, ClientUniqueID: '1254400000001', ProcessingDate: '2026-11-01', currency: 'USD', TransactionAmount: '250.00' };
const ticket2 = { id: 3, ticket_number: '1254400000003', trans_date: '2026-11-02', local_fare_currency: 'USD', transaction_code: 'EMDA', SaleAmount: '150.25' };

/** The answer to a write kept for a second user's approval. */
function pendingApproval(id: number, action: string): [number, unknown] {
  return [202, { succeeded: false, data: null, error: `Sent for approval (request ${id}): ...`, code: 'approvals.pending', params: { id, action } }];
}

/** The info toast of a request sent for approval (never an error toast). */
async function approvalToast(id: number) {
  const toast = await screen.findByText(`Sent for approval (request ${id}): a second user with the Approvals screen must approve it before it is carried out.`);
  expect(toast.closest('.p-toast-message-info')).not.toBeNull();
  expect(screen.getByText(en.approvals.toastTitle)).toBeTruthy();
  expect([...document.querySelectorAll('.p-toast-message-error')].some((e) => e.textContent?.includes('Sent for approval'))).toBe(false);
}

function pick(testId: string, text: string) {
  fireEvent.click(within(screen.getByTestId(testId)).getByText(text).closest('.rdg-cell')!);
}

/** A line of the running sums under the grids: its name and its figure. */
function sumLine(testId: string): [string, string] {
  const line = screen.getByTestId(testId);
  return [line.querySelector('dt')?.textContent ?? '', line.querySelector('dd')?.textContent ?? ''];
}

/** The column headers of a record grid, without the pick column. */
function headers(testId: string): string[] {
  return [...screen.getByTestId(testId).querySelectorAll('.rdg-header-row .rdg-cell')].map((e) => e.textContent ?? '').filter((text) => text !== '');
}

describe('ManualReconcileDialog', () => {
  it('settlements vs bank: bank first, warns without both rows, sends {leftIds, rightIds}, offers Match anyway on a currency refusal', async () => {
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': ok({ item1: [bank], item2: [payout], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/settlement-bank/match': [
        [400, { succeeded: false, error: 'The amounts differ...', field: 'force', code: 'recon.outsideCurrencyTolerance', params: { difference: '12.00', tolerance: '1', provider: 'Nuvei' } }],
        created({ id: 44, status: 'matched' }),
      ],
    });
    const onClose = vi.fn();
    const onReconciled = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('settlement-bank')} filters={filters} visible onClose={onClose} onReconciled={onReconciled} />);
    await screen.findByText('SE4550000000058398257466');
    expect(api.callsTo('POST', '/api/recon/settlement-bank/candidates')[0]!.body).toEqual(filters);
    expect(screen.queryByTestId('manual-investigate')).toBeNull();
    // The level's `dialog` side (bank) first, each grid with the columns the level declares.
    expect(headers('manual-grid-item1')).toEqual(['Id', 'Bank account', 'Amount (local)', 'Charges', 'Currency', 'Booked date', 'Provider', 'Text']);
    expect(headers('manual-grid-item2')).toEqual(['Id', 'Payout ID', 'Settlement amount', 'Currency', 'Settlement date', 'Provider', 'Settlements']);

    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await screen.findByText(en.recon.toasts.selectBoth['settlement-bank']);
    pick('manual-grid-item1', 'SE4550000000058398257466');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')).toHaveLength(0);

    pick('manual-grid-item2', 'PO-NUVEI-20261101-SEK');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    const refusal: string = 'The amounts differ by 12.00% in USD, beyond the currency tolerance of 1% of Nuvei; choose Match anyway to match regardless.';
    expect((await screen.findByTestId('manual-failure')).textContent).toContain(refusal);
    // item1 is the bank booking (the right side), item2 the payout (the left side).
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')[0]!.body).toEqual({ leftIds: [9], rightIds: [5] });
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByTestId('manual-force-reason')).toBeTruthy();
  });

  it('forcing a refused pair asks for a reason and sends it; the server\'s demand for one is shown too', async () => {
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': ok({ item1: [bank], item2: [payout], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/settlement-bank/match': [
        [400, { succeeded: false, error: 'The payout\u2019s settlements are in several currencies.', field: 'force', code: 'recon.mixedCurrencies' }],
        [400, { succeeded: false, error: 'A forced match needs a reason.', field: 'reason', code: 'recon.forceReasonRequired' }],
        created({ id: 45, status: 'matched', rule: 'forced' }),
      ],
    });
    const onClose = vi.fn();
    const onReconciled = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('settlement-bank')} filters={filters} visible onClose={onClose} onReconciled={onReconciled} />);
    await screen.findByText('SE4550000000058398257466');
    pick('manual-grid-item1', 'SE4550000000058398257466');
    pick('manual-grid-item2', 'PO-NUVEI-20261101-SEK');
    expect(screen.queryByTestId('manual-force')).toBeNull();
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await screen.findByTestId('manual-force');
    const calls = () => api.callsTo('POST', '/api/recon/settlement-bank/match');

    // No reason: nothing is sent, the field says why.
    fireEvent.change(screen.getByTestId('manual-force-reason'), { target: { value: '   ' } });
    fireEvent.click(screen.getByTestId('manual-force'));
    expect((await screen.findByTestId('manual-force-reason-error')).textContent).toBe(en.recon.errors.forceReasonRequired);
    expect(calls()).toHaveLength(1);
    expect(screen.getByTestId('manual-force-reason').getAttribute('maxlength')).toBe('1000');

    // The server refuses a forced match without a reason with field reason: the offer stays.
    fireEvent.change(screen.getByTestId('manual-force-reason'), { target: { value: ' Bank booked two payouts as one ' } });
    fireEvent.click(screen.getByTestId('manual-force'));
    await waitFor(() => expect(calls()).toHaveLength(2));
    expect(calls()[1]!.body).toEqual({ leftIds: [9], rightIds: [5], force: true, reason: 'Bank booked two payouts as one' });
    expect((await screen.findByTestId('manual-failure')).textContent).toBe(en.recon.errors.forceReasonRequired);
    expect(screen.getByTestId('manual-force')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();

    fireEvent.click(screen.getByTestId('manual-force'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls()[2]!.body).toEqual({ leftIds: [9], rightIds: [5], force: true, reason: 'Bank booked two payouts as one' });
    expect(onReconciled).toHaveBeenCalled();
    await screen.findByText(en.recon.toasts.reconciled);
  });

  it('tickets vs transactions: Investigation is a match marked investigate; a pair matched meanwhile keeps the dialog open with the reason', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/candidates': ok({ item1: [ticket], item2: [transaction], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/ticket-transaction/match': [
        [409, { succeeded: false, error: 'The ticket 1 is already matched', code: 'recon.alreadyMatched', params: { kind: 'ticket', id: 1, matchId: 3, by: 'bo' } }],
        created({ id: 7, status: 'investigation' }),
      ],
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('TKTT');
    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item2', '2');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    expect((await screen.findByTestId('manual-failure')).textContent).toContain('The ticket 1 is already matched (match 3, by bo); undo that match first.');
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/match')[0]!.body).toEqual({ leftIds: [1], rightIds: [2] });
    expect(screen.queryByTestId('manual-force')).toBeNull();
    expect(onClose).not.toHaveBeenCalled();

    fireEvent.click(screen.getByTestId('manual-investigate'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/match')[1]!.body).toEqual({ leftIds: [1], rightIds: [2], investigate: true });
  });

  it('a forced match kept for a second user\'s approval: an info toast, and the dialog closes as after a match', async () => {
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': ok({ item1: [bank], item2: [payout], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/settlement-bank/match': [
        [400, { succeeded: false, error: 'The payout\u2019s settlements are in several currencies.', field: 'force', code: 'recon.mixedCurrencies' }],
        pendingApproval(31, 'forcedMatch'),
      ],
    });
    const onClose = vi.fn();
    const onReconciled = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('settlement-bank')} filters={filters} visible onClose={onClose} onReconciled={onReconciled} />);
    await screen.findByText('SE4550000000058398257466');
    pick('manual-grid-item1', 'SE4550000000058398257466');
    pick('manual-grid-item2', 'PO-NUVEI-20261101-SEK');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await screen.findByTestId('manual-force');
    fireEvent.change(screen.getByTestId('manual-force-reason'), { target: { value: 'one payout booked twice' } });
    fireEvent.click(screen.getByTestId('manual-force'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')[1]!.body).toEqual({ leftIds: [9], rightIds: [5], force: true, reason: 'one payout booked twice' });
    await approvalToast(31);
    expect(onReconciled).toHaveBeenCalled();
    expect(screen.queryByText(en.recon.toasts.reconciled)).toBeNull();
  });

  it('a level the UI has never heard of: its columns, its sides\' names in the warning, its ids mapped back to left and right', async () => {
    const settlement = { id: 70, ClientUniqueID: '1254400000001', GrossAmount: '250.00', SettlementBatch: 'B-17' };
    const api = mockApi({
      'POST /api/recon/ticket-settlement/candidates': ok({ item1: [settlement], item2: [ticket], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/ticket-settlement/match': created({ id: 80, status: 'matched' }),
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={FOURTH_LEVEL} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('B-17');
    expect(headers('manual-grid-item1')).toEqual(['Id', 'Ticket number', 'Gross amount', 'SettlementBatch']);
    expect(headers('manual-grid-item2')).toEqual(['Id', 'Ticket number', 'Sale amount']);
    expect(screen.getByTestId('manual-dialog').textContent).toContain('Settlement');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await screen.findByText('Choose a settlement and a ticket.');
    pick('manual-grid-item1', 'B-17');
    pick('manual-grid-item2', '250.00');
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/ticket-settlement/match')[0]!.body).toEqual({ leftIds: [1], rightIds: [70] });
  });

  it('a group: two tickets and a transaction ticked show running sums, then the server\'s figures and verdict; Match sends the id lists', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/candidates': ok({ item1: [ticket, ticket2], item2: [transaction], item1Total: 2, item2Total: 1, limit: 500 }),
      'POST /api/recon/ticket-transaction/evaluate': ok({
        leftSum: '400.25',
        rightSum: '399.75',
        leftCurrency: 'USD',
        rightCurrency: 'USD',
        variance: '0.50',
        dateLagDays: 1,
        inside: true,
        status: 'partial',
        tolerance: { amount: '1.00', days: 2, currencyPct: null },
        refusal: null,
      }),
      'POST /api/recon/ticket-transaction/match': created({ id: 91, leftId: 1, rightId: 2, leftIds: [1, 3], rightIds: [2], status: 'partial' }),
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    expect(screen.queryByTestId('manual-group')).toBeNull();

    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item1', 'EMDA');
    // Summed here, exactly, while only one side is ticked: nothing to ask the server yet.
    expect(sumLine('manual-sum-item1')).toEqual(['2 tickets', '400.25 USD']);
    expect(sumLine('manual-sum-item2')).toEqual(['0 transactions', '–']);
    expect(screen.getByTestId('manual-chosen-item1').textContent).toBe('2 chosen');
    expect((screen.getByTestId('manual-grid-item1-tick-3') as HTMLInputElement).checked).toBe(true);
    // A second click unticks a row, a third ticks it again.
    pick('manual-grid-item1', 'EMDA');
    expect(sumLine('manual-sum-item1')).toEqual(['1 ticket', '250.00 USD']);
    expect((screen.getByTestId('manual-grid-item1-tick-3') as HTMLInputElement).checked).toBe(false);
    pick('manual-grid-item1', 'EMDA');
    expect(screen.queryByTestId('manual-difference')).toBeNull();

    pick('manual-grid-item2', '2');
    // At once the local difference and a pending verdict; the server's answer follows.
    expect(sumLine('manual-difference')).toEqual(['Difference (ticket − transaction)', '150.25 USD']);
    expect(screen.getByTestId('manual-verdict').textContent).toBe(en.recon.manual.group.checking);
    await screen.findByText('Inside the tolerance (amount ±1.00 USD, 2 days) · 1 day apart · would be matched within tolerance');
    expect(sumLine('manual-sum-item1')).toEqual(['2 tickets', '400.25 USD']);
    expect(sumLine('manual-sum-item2')).toEqual(['1 transaction', '399.75 USD']);
    expect(sumLine('manual-difference')).toEqual(['Difference (ticket − transaction)', '0.50 USD']);
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/evaluate').at(-1)!.body).toEqual({ leftIds: [1, 3], rightIds: [2] });

    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/match')[0]!.body).toEqual({ leftIds: [1, 3], rightIds: [2] });
    await screen.findByText(en.recon.toasts.reconciled);
  });

  it('a group the server would refuse: its reason in words, and Match anyway asks for a reason and sends force', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/candidates': ok({ item1: [ticket, ticket2], item2: [transaction], item1Total: 2, item2Total: 1, limit: 500 }),
      'POST /api/recon/ticket-transaction/evaluate': ok({
        leftSum: '400.25',
        rightSum: '250.00',
        leftCurrency: 'USD',
        rightCurrency: 'USD',
        variance: '150.25',
        dateLagDays: 1,
        inside: false,
        status: 'partial',
        tolerance: { amount: '1.00', days: 2, currencyPct: null },
        refusal: {
          error: "The group's sums differ by 150.25 and 1 days (1.00 and 2 days allowed for Nuvei); give a reason and force to match anyway.",
          code: 'recon.groupOutsideTolerance',
          params: { difference: '150.25', days: 1, tolerance: '1.00', toleranceDays: 2, provider: 'Nuvei' },
        },
      }),
      'POST /api/recon/ticket-transaction/match': created({ id: 92, leftId: 1, rightId: 2, leftIds: [1, 3], rightIds: [2], status: 'matched', rule: 'forced' }),
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item1', 'EMDA');
    pick('manual-grid-item2', '2');
    expect(screen.getByTestId('manual-reconcile')).toBeTruthy();

    // The refusal turns Reconcile into Match anyway, with the reason field beside the verdict.
    const force = await screen.findByTestId('manual-force');
    expect(screen.queryByTestId('manual-reconcile')).toBeNull();
    expect(screen.getByTestId('manual-verdict').textContent).toBe("The group's amounts differ by 150.25 USD (1.00 USD allowed for Nuvei); give a reason and force to match anyway.");
    const calls = () => api.callsTo('POST', '/api/recon/ticket-transaction/match');
    fireEvent.click(force);
    expect((await screen.findByTestId('manual-force-reason-error')).textContent).toBe(en.recon.errors.forceReasonRequired);
    expect(calls()).toHaveLength(0);

    fireEvent.change(screen.getByTestId('manual-force-reason'), { target: { value: ' One card payment for two tickets ' } });
    fireEvent.click(screen.getByTestId('manual-force'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls()[0]!.body).toEqual({ leftIds: [1, 3], rightIds: [2], force: true, reason: 'One card payment for two tickets' });
  });

  it('bank first: two bank bookings and a payout are sent as their sides; an older server\'s level is counted, not summed', async () => {
    const bank2 = { ...bank, id: 6, BankAccount: 'SE4550000000058398257467', ReconciliationAmountLocal: '-12.00' };
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': ok({ item1: [bank, bank2], item2: [payout], item1Total: 2, item2Total: 1, limit: 500 }),
      'POST /api/recon/settlement-bank/match': created({ id: 93, status: 'matched' }),
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('settlement-bank')} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('SE4550000000058398257467');
    pick('manual-grid-item1', 'SE4550000000058398257466');
    pick('manual-grid-item1', 'SE4550000000058398257467');
    pick('manual-grid-item2', 'PO-NUVEI-20261101-SEK');
    expect(sumLine('manual-sum-item1')).toEqual(['2 bank bookings', '–']);
    expect(sumLine('manual-sum-item2')).toEqual(['1 payout', '–']);
    // No evaluate call on that server (404 without a code): no verdict, no failure.
    expect(screen.getByTestId('manual-verdict').textContent).toBe(en.recon.manual.group.checking);
    await waitFor(() => expect(screen.queryByTestId('manual-verdict')).toBeNull());
    expect(api.callsTo('POST', '/api/recon/settlement-bank/evaluate')[0]!.body).toEqual({ leftIds: [9], rightIds: [5, 6] });
    fireEvent.click(screen.getByTestId('manual-reconcile'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/settlement-bank/match')[0]!.body).toEqual({ leftIds: [9], rightIds: [5, 6] });
  });

  it('a failed candidates load says so (the server text, else the spec fallback)', async () => {
    mockApi({ 'POST /api/recon/transaction-settlement/candidates': [503, { succeeded: false }] });
    wrap(<ManualReconcileDialog level={testLevel('transaction-settlement')} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    expect((await screen.findAllByText(en.recon.toasts.loadFailed)).length).toBeGreaterThan(0);
  });
});

describe('ManualReconcileDialog: write-off', () => {
  const writeOffUrl = '/api/recon/ticket-transaction/writeoff';
  const candidates = ok({ item1: [ticket, ticket2], item2: [transaction], item1Total: 2, item2Total: 1, limit: 500 });
  const button = () => screen.getByTestId('manual-writeoff') as HTMLButtonElement;

  it('is offered only with records ticked on exactly one side, and Cancel sends nothing', async () => {
    const api = mockApi({ 'POST /api/recon/ticket-transaction/candidates': candidates });
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    expect(button().disabled).toBe(true);
    pick('manual-grid-item1', 'TKTT');
    expect(button().disabled).toBe(false);
    pick('manual-grid-item2', '2');
    expect(button().disabled).toBe(true);
    pick('manual-grid-item1', 'TKTT');
    // The transaction alone: written off on its own side.
    expect(button().disabled).toBe(false);
    pick('manual-grid-item2', '2');
    expect(button().disabled).toBe(true);

    pick('manual-grid-item1', 'EMDA');
    fireEvent.click(button());
    await screen.findByTestId('writeoff-reason');
    fireEvent.click(screen.getByTestId('writeoff-cancel'));
    await waitFor(() => expect(screen.queryByTestId('writeoff-reason')).toBeNull());
    expect(api.callsTo('POST', writeOffUrl)).toHaveLength(0);
    expect(screen.getByTestId('manual-dialog')).toBeTruthy();
  });

  it('names the count and sum, needs a reason, sends {side, ids, reason} and closes as a match does', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/candidates': candidates,
      [`POST ${writeOffUrl}`]: created({
        id: 95,
        level: 1,
        leftId: 1,
        rightId: 0,
        leftIds: [1, 3],
        rightIds: [],
        status: 'matched',
        rule: 'writeoff',
        amountVariance: '400.25',
        reason: 'Fare difference accepted',
        createdBy: 'bo',
        createdOn: '2026-11-24T10:00:00Z',
      }),
    });
    const onClose = vi.fn();
    const onReconciled = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={onClose} onReconciled={onReconciled} />);
    await screen.findByText('EMDA');
    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item1', 'EMDA');
    fireEvent.click(button());
    const reason = await screen.findByTestId('writeoff-reason');
    expect(screen.getByTestId('writeoff-count').textContent).toContain('2 tickets');
    expect(screen.getByTestId('writeoff-sum').textContent).toContain('400.25 USD');
    expect(screen.getByTestId('writeoff-question').textContent).toContain('Write off 2 tickets without a counter-record?');
    expect(reason.getAttribute('maxlength')).toBe('1000');

    fireEvent.change(reason, { target: { value: '   ' } });
    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    expect((await screen.findByTestId('writeoff-reason-error')).textContent).toBe(en.recon.writeoff.reasonRequired);
    expect(api.callsTo('POST', writeOffUrl)).toHaveLength(0);

    fireEvent.change(reason, { target: { value: ' Fare difference accepted ' } });
    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', writeOffUrl)[0]!.body).toEqual({ side: 'left', ids: [1, 3], reason: 'Fare difference accepted' });
    expect(onReconciled).toHaveBeenCalled();
    await screen.findByText('2 records written off (match 95)');
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/match')).toHaveLength(0);
  });

  it('a write-off kept for a second user\'s approval closes as a write-off does, with an info toast', async () => {
    const api = mockApi({ 'POST /api/recon/ticket-transaction/candidates': candidates, [`POST ${writeOffUrl}`]: pendingApproval(32, 'writeoff') });
    const onClose = vi.fn();
    const onReconciled = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={onClose} onReconciled={onReconciled} />);
    await screen.findByText('EMDA');
    pick('manual-grid-item1', 'TKTT');
    fireEvent.click(button());
    fireEvent.change(await screen.findByTestId('writeoff-reason'), { target: { value: 'small fare difference' } });
    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', writeOffUrl)[0]!.body).toEqual({ side: 'left', ids: [1], reason: 'small fare difference' });
    await approvalToast(32);
    expect(onReconciled).toHaveBeenCalled();
    expect(screen.queryByTestId('writeoff-failure')).toBeNull();
  });

  it('bank first: a ticked bank booking is written off as the right side', async () => {
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': ok({ item1: [bank], item2: [payout], item1Total: 1, item2Total: 1, limit: 500 }),
      'POST /api/recon/settlement-bank/writeoff': created({ id: 96, leftId: 0, rightId: 5, leftIds: [], rightIds: [5], status: 'matched', rule: 'writeoff', amountVariance: '-1000.00' }),
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('settlement-bank')} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('SE4550000000058398257466');
    pick('manual-grid-item1', 'SE4550000000058398257466');
    fireEvent.click(button());
    // This level declares no amount field (an older server): the sum is not known here.
    expect((await screen.findByTestId('writeoff-sum')).textContent).toContain('–');
    fireEvent.change(screen.getByTestId('writeoff-reason'), { target: { value: 'Bank fee' } });
    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.callsTo('POST', '/api/recon/settlement-bank/writeoff')[0]!.body).toEqual({ side: 'right', ids: [5], reason: 'Bank fee' });
    await screen.findByText('1 record written off (match 96)');
  });

  it('a write-off over the user\'s limit is said in the reader\'s words with its amounts; the confirmation stays open', async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/candidates': candidates,
      [`POST ${writeOffUrl}`]: [
        [403, { succeeded: false, error: 'Writing off 400.25 USD is over your write-off limit of 100.00 USD.', code: 'recon.writeoffOverLimit', params: { amount: '400.25', limit: '100.00' } }],
        [403, { succeeded: false, error: 'None of your roles allows write-offs.', code: 'recon.writeoffNotAllowed' }],
        [400, { succeeded: false, error: 'No USD rate for SEK on 2026-11-01.', code: 'recon.noRate', field: 'ids', params: { currency: 'SEK' } }],
      ],
    });
    const onClose = vi.fn();
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={onClose} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item1', 'EMDA');
    fireEvent.click(button());
    fireEvent.change(await screen.findByTestId('writeoff-reason'), { target: { value: 'Fare difference accepted' } });
    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    const overLimit = 'Writing off 400.25 USD is over your limit of 100.00 USD; ask someone with a higher write-off limit.';
    await waitFor(() => expect(screen.getByTestId('writeoff-failure').textContent).toBe(overLimit));
    expect((await screen.findAllByText(overLimit)).length).toBeGreaterThan(1); // the toast too
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByTestId('writeoff-reason')).toBeTruthy();

    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    await waitFor(() => expect(screen.getByTestId('writeoff-failure').textContent).toBe(en.recon.errors.writeoffNotAllowed));
    fireEvent.click(screen.getByTestId('writeoff-confirm'));
    await waitFor(() => expect(screen.getByTestId('writeoff-failure').textContent).toBe(en.recon.writeoff.noRate));
    expect(api.callsTo('POST', writeOffUrl)).toHaveLength(3);
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('ManualReconcileDialog: candidates near the ticks', () => {
  // Transactions by id (the plain order); ranked near ticket 1 the one of its number comes first.
  const txA = { id: 2, ClientUniqueID: '1254400000009', ProcessingDate: '2026-11-02', currency: 'USD', TransactionAmount: '249.50' };
  const txB = { id: 4, ClientUniqueID: '1254400000008', ProcessingDate: '2026-11-01', currency: 'EUR', TransactionAmount: '80.00' };
  const txC = { id: 6, ClientUniqueID: '1254400000001', ProcessingDate: '2026-11-01', currency: 'USD', TransactionAmount: '250.00' };
  const plain = { item1: [ticket, ticket2], item2: [txA, txB, txC], item1Total: 2, item2Total: 3, limit: 2000 };
  const near = (row: object, SameReference: boolean, AmountGap: number | null) => ({ ...row, SameReference, AmountGap });
  const url = '/api/recon/ticket-transaction/candidates';

  /** The ids of a record grid's rows, top to bottom. */
  function order(testId: string): string[] {
    return [...screen.getByTestId(testId).querySelectorAll('.rdg-row')].map((row) => row.querySelector<HTMLInputElement>('input.record-grid__tick')!.dataset.testid!.split('-tick-')[1]!);
  }
  const ticked = (testId: string) => (screen.getByTestId(testId) as HTMLInputElement).checked;
  const rowOf = (testId: string) => screen.getByTestId(testId).closest('.rdg-row')!;
  const flip = (testId: string) => fireEvent.click(within(screen.getByTestId(testId)).getByRole('switch'));
  // The ranked lists come after the ticking pauses; a busy machine renders two grids slowly.
  const SLOW = { timeout: 5_000 };

  it('Closest first: with a ticket ticked the transactions come in the server\'s order with their markers; ticks survive; off restores the plain order', async () => {
    const api = mockApi({
      [`POST ${url}`]: (body) => {
        const asked = (body as { near?: { leftIds: number[]; rightIds: number[] } }).near;
        if (!asked) return ok(plain);
        if (asked.rightIds.length === 0) return ok({ ...plain, item2: [near(txC, true, 0), near(txA, false, 0.5), near(txB, false, null)] });
        // Both sides ticked: the tickets are ranked too.
        return ok({ ...plain, item1: [near(ticket, true, 0), near(ticket2, false, 150.25)], item2: [near(txC, true, 0), near(txA, false, 0.5), near(txB, false, null)] });
      },
    });
    const calls = () => api.callsTo('POST', url);
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    expect(order('manual-grid-item2')).toEqual(['2', '4', '6']);

    // Ticking while the switches are off asks nothing and moves nothing.
    pick('manual-grid-item1', 'TKTT');
    expect(order('manual-grid-item2')).toEqual(['2', '4', '6']);
    flip('manual-closest');
    await waitFor(() => expect(order('manual-grid-item2')).toEqual(['6', '2', '4']), SLOW);
    expect(calls()).toHaveLength(2);
    expect(calls()[1]!.body).toEqual({ ...filters, near: { leftIds: [1], rightIds: [] } });
    expect(screen.getByTestId('manual-near-state').dataset.state).toBe('done');

    // The markers: the shared reference, and the gap as the dialog writes amounts (another currency: a dash).
    expect(screen.getByTestId('manual-grid-item2-near-6-ref').textContent).toBe(en.recon.manual.near.sameReference);
    expect(screen.getByTestId('manual-grid-item2-near-6-gap').textContent).toBe('0.00');
    expect(screen.queryByTestId('manual-grid-item2-near-2-ref')).toBeNull();
    expect(screen.getByTestId('manual-grid-item2-near-2-gap').textContent).toBe('0.50');
    expect(screen.getByTestId('manual-grid-item2-near-4-gap').textContent).toBe('–');
    expect(headers('manual-grid-item2')[0]).toBe(en.recon.manual.near.column);
    // Only the row that closes the group is tinted.
    expect(rowOf('manual-grid-item2-near-6').classList).toContain('record-grid__row--closes');
    expect(rowOf('manual-grid-item2-near-2').classList).not.toContain('record-grid__row--closes');
    // The tickets are not ranked (nothing ticked against them): no markers, the ticked one still ticked.
    expect(screen.queryByTestId('manual-grid-item1-near-1')).toBeNull();
    expect(order('manual-grid-item1')).toEqual(['1', '3']);
    expect(ticked('manual-grid-item1-tick-1')).toBe(true);

    // A transaction ticked: asked again with both sides; every tick survives the new lists.
    pick('manual-grid-item2', '1254400000001');
    await waitFor(() => expect(calls()).toHaveLength(3), SLOW);
    expect(calls()[2]!.body).toEqual({ ...filters, near: { leftIds: [1], rightIds: [6] } });
    await screen.findByTestId('manual-grid-item1-near-1-ref', undefined, SLOW);
    expect(screen.getByTestId('manual-grid-item1-near-3-gap').textContent).toBe('150.25');
    expect(ticked('manual-grid-item1-tick-1')).toBe(true);
    expect(ticked('manual-grid-item2-tick-6')).toBe(true);
    expect(rowOf('manual-grid-item2-near-6').classList).toContain('record-grid__row--picked');
    expect(sumLine('manual-sum-item1')).toEqual(['1 ticket', '250.00 USD']);
    expect(sumLine('manual-sum-item2')).toEqual(['1 transaction', '250.00 USD']);

    // Off: the plain lists at once, the ticks kept, nothing asked.
    flip('manual-closest');
    expect(order('manual-grid-item2')).toEqual(['2', '4', '6']);
    expect(screen.queryByTestId('manual-grid-item2-near-6')).toBeNull();
    expect(screen.queryByTestId('manual-grid-item1-near-1')).toBeNull();
    expect(ticked('manual-grid-item1-tick-1')).toBe(true);
    expect(ticked('manual-grid-item2-tick-6')).toBe(true);
    expect(screen.getByTestId('manual-near-state').dataset.state).toBe('off');
    expect(calls()).toHaveLength(3);
  });

  it('Sums to the difference: only with a tick, sends sumsTo, keeps a ticked record the list left out ticked and summed; the last untick turns it off', async () => {
    const api = mockApi({
      [`POST ${url}`]: (body) => {
        const asked = (body as { near?: { sumsTo?: boolean } }).near;
        if (!asked) return ok(plain);
        // The tickets within the tolerance of what the group lacks; the transactions likewise,
        // here without the ticked one, as a list that left it out would be.
        return ok({ item1: [near(ticket, false, 0.5)], item2: [near(txC, true, 0.5)], item1Total: 1, item2Total: 1, limit: 2000 });
      },
    });
    const calls = () => api.callsTo('POST', url);
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    const sumsTo = () => within(screen.getByTestId('manual-sums-to')).getByRole('switch') as HTMLInputElement;
    expect(sumsTo().disabled).toBe(true);

    pick('manual-grid-item1', 'TKTT');
    pick('manual-grid-item2', '1254400000009');
    expect(sumsTo().disabled).toBe(false);
    flip('manual-sums-to');
    await waitFor(() => expect(order('manual-grid-item2')).toEqual(['2', '6']), SLOW);
    expect(calls().at(-1)!.body).toEqual({ ...filters, near: { leftIds: [1], rightIds: [2], sumsTo: true } });
    expect(order('manual-grid-item1')).toEqual(['1']);
    // The ticked transaction the list lacks: listed first, still ticked and in the sums.
    expect(ticked('manual-grid-item2-tick-2')).toBe(true);
    expect(sumLine('manual-sum-item2')).toEqual(['1 transaction', '249.50 USD']);
    expect(screen.getByTestId('manual-chosen-item2').textContent).toBe('Chosen: 1254400000009'); // its reference, not its id
    // Every record the list kept is within the tolerance: tinted.
    expect(rowOf('manual-grid-item2-near-6').classList).toContain('record-grid__row--closes');

    // Nothing ticked any more: the switch goes off and grey, the plain lists return.
    pick('manual-grid-item2', '1254400000009');
    pick('manual-grid-item1', 'TKTT');
    await waitFor(() => expect(sumsTo().disabled).toBe(true));
    expect(sumsTo().checked).toBe(false);
    expect(order('manual-grid-item2')).toEqual(['2', '4', '6']);
    expect(order('manual-grid-item1')).toEqual(['1', '3']);
  });

  it('Sums to the difference keeping nothing to add says so instead of leaving an empty grid', async () => {
    mockApi({
      [`POST ${url}`]: (body) => ((body as { near?: unknown }).near ? ok({ ...plain, item2: [], item2Total: 0 }) : ok(plain)),
    });
    wrap(<ManualReconcileDialog level={testLevel('ticket-transaction')} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    await screen.findByText('EMDA');
    pick('manual-grid-item1', 'TKTT');
    flip('manual-sums-to');
    await waitFor(() => expect(screen.getByTestId('manual-near-state').textContent).toBe(en.recon.manual.near.noneWithin), SLOW);
    expect(order('manual-grid-item2')).toEqual([]);
    expect(ticked('manual-grid-item1-tick-1')).toBe(true);
  });

  it('bank first: a ticked booking is sent as the right side; a refusal is said in words and the lists stay', async () => {
    const api = mockApi({
      'POST /api/recon/settlement-bank/candidates': (body) =>
        (body as { near?: unknown }).near
          ? [400, { succeeded: false, error: 'The record 5 is ticked twice.', code: 'recon.duplicateRecord', field: 'near.rightIds', params: { id: 5 } }]
          : ok({ item1: [bank], item2: [payout], item1Total: 1, item2Total: 1, limit: 2000 }),
    });
    wrap(<ManualReconcileDialog level={testLevel('settlement-bank')} filters={filters} visible onClose={() => {}} onReconciled={() => {}} />);
    await screen.findByText('SE4550000000058398257466');
    flip('manual-closest');
    expect(screen.getByTestId('manual-near-state').textContent).toBe(en.recon.manual.near.tickFirst);
    pick('manual-grid-item1', 'SE4550000000058398257466');
    await waitFor(() => expect(screen.getByTestId('manual-near-state').dataset.state).toBe('failed'), SLOW);
    expect(api.callsTo('POST', '/api/recon/settlement-bank/candidates')[1]!.body).toEqual({ ...filters, near: { leftIds: [], rightIds: [5] } });
    expect(screen.getByTestId('manual-near-state').textContent).toBe('The record 5 is ticked twice.');
    expect(order('manual-grid-item2')).toEqual(['9']);
    expect(ticked('manual-grid-item1-tick-5')).toBe(true);
  });
});

describe('UndoMatchDialog', () => {
  it('asks for a reason before the call, sends it, and reports the undo', async () => {
    const api = mockApi({ 'DELETE /api/recon/ticket-transaction/match/7': ok({ id: 7 }) });
    const onUndone = vi.fn();
    const onClose = vi.fn();
    wrap(<UndoMatchDialog target={{ slug: 'ticket-transaction', matchId: 7, what: 'Ticket 1254400000001' }} onClose={onClose} onUndone={onUndone} />);
    // The record by its reference (first user, second round, item 7); the match id only small.
    expect(screen.getByText(/Undo the match of Ticket 1254400000001\?/)).toBeTruthy();
    expect(screen.getByTestId('undo-match-id').textContent).toBe('match 7');
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

  it('undoing a group names how many records of each kind go back to unmatched', () => {
    mockApi({});
    const group = { left: { kind: 'ticket', label: 'recon.kinds.ticket', count: 2 }, right: { kind: 'transaction', label: 'recon.kinds.transaction', count: 1 } };
    wrap(<UndoMatchDialog target={{ slug: 'ticket-transaction', matchId: 9, what: 'ticket 1254400000001, ticket 1254400000003, transaction 1254400000001', group }} onClose={() => {}} onUndone={() => {}} />);
    expect(
      screen.getByText('Undo the match of 2 tickets and 1 transaction (ticket 1254400000001, ticket 1254400000003, transaction 1254400000001)? Every record of the group becomes unmatched again.'),
    ).toBeTruthy();
  });

  it('an undo of an old match kept for a second user\'s approval closes with an info toast; nothing is undone yet', async () => {
    mockApi({ 'DELETE /api/recon/ticket-transaction/match/6': pendingApproval(33, 'oldUndo') });
    const onClose = vi.fn();
    const onUndone = vi.fn();
    wrap(<UndoMatchDialog target={{ slug: 'ticket-transaction', matchId: 6, what: 'Ticket 1254400000001' }} onClose={onClose} onUndone={onUndone} />);
    fireEvent.change(screen.getByTestId('undo-reason'), { target: { value: 'wrong pair' } });
    fireEvent.click(screen.getByTestId('undo-confirm'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    await approvalToast(33);
    expect(onUndone).not.toHaveBeenCalled();
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

  it('shows the linked documents by reference when the details pass them', async () => {
    mockApi({ 'GET /api/Users/list': ok([]) });
    const ticket = { ticketId: 1, ticketNumber: '1254400000001', transDate: '2026-11-01', paymentType: 'CC', countryCode: 'US', localFareCurrency: 'USD', transactionCode: '', totalFareIncludesFee: '250.00' };
    const transaction = { transactionId: 3, clientUniqueId: '1254400000001', date: '2026-11-01', acquiringBank: 'Bank A', paymentMethod: '', currency: 'USD', transactionType: '', amount: '250.00', isManualAdjust: false, remarks: '', createdBy: '' };
    wrap(<CreateTaskFromDetails links={{ ...links, ticketIds: [1], tickets: [ticket], transactions: [transaction] }} onClose={() => {}} />);
    expect((await screen.findByTestId('task-chip-ticket-1')).textContent).toContain('1254400000001');
    expect(screen.getByTestId('task-chip-transaction-3').textContent).toContain('1254400000001');
    expect(screen.getByTestId('task-chip-ticket-1').textContent).not.toMatch(/Ticket id 1\b/);
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
    wrap(<DetailsDialog level={testLevel('ticket-transaction')} row={row} reloadToken={0} onClose={() => {}} onChain={onChain} onUndo={onUndo} onCreateTask={onCreateTask} />);
    await screen.findByText('1254400000002');
    expect(api.callsTo('POST', '/api/recon/ticket-transaction/details')[0]!.body).toEqual({ Currency: 'USD', SelectDate: '2026-11-03', PaymentType: 'CC', CountryCode: 'US' });
    expect([...screen.getByTestId('details-grid-1').querySelectorAll('[data-testid="record-status"]')].map((e) => e.textContent)).toEqual(['Matched', 'Unmatched']);
    expect(screen.queryByTestId('details-undo-ticket-2')).toBeNull();
    // The match is asked for its group (GET .../why answers it); a one-to-one match names its record.
    fireEvent.click(screen.getByTestId('details-undo-ticket-1'));
    await waitFor(() => expect(onUndo).toHaveBeenCalledWith({ slug: 'ticket-transaction', matchId: 5, what: 'Ticket 1254400000001' }));
    fireEvent.click(screen.getByTestId('details-chain-transaction-3'));
    expect(onChain).toHaveBeenCalledWith({ kind: 'transaction', id: 3 });
    fireEvent.click(screen.getByTestId('details-create-task'));
    expect(onCreateTask).toHaveBeenCalledWith(
      expect.objectContaining({ ticketIds: [1, 2], transactionIds: [3], context: 'USD · 03-11-2026 · CC · US' }),
    );
    // The documents themselves go along, so the task editor shows them by reference.
    const links = onCreateTask.mock.calls[0]![0] as TaskLinks;
    expect(links.tickets?.map((k) => [k.ticketId, k.ticketNumber, k.totalFareIncludesFee, k.localFareCurrency])).toEqual([
      [1, '1254400000001', '250.00', 'USD'],
      [2, '1254400000002', '99.00', 'USD'],
    ]);
    expect(links.transactions?.map((x) => [x.transactionId, x.clientUniqueId, x.amount, x.currency])).toEqual([[3, '1254400000001', '250.00', 'USD']]);
  });

  const groupRecords = {
    item1: [
      { id: 1, TicketNumber: '1254400000001', TransactionDate: '2026-11-03', Currency: 'USD', TotalFareWithFees: '250.00', MatchStatus: 'matched', MatchId: 7 },
      { id: 2, TicketNumber: '1254400000002', TransactionDate: '2026-11-03', Currency: 'USD', TotalFareWithFees: '99.00', MatchStatus: 'matched', MatchId: 7 },
    ],
    item2: [{ id: 3, ClientUniqueID: '1254400000001', ProcessingDate: '2026-11-03', currency: 'USD', Amount: '349.00', MatchStatus: 'matched', MatchId: 7 }],
  };

  it("undoing a group's match names its counts per side and its first members, from the match's ids", async () => {
    const api = mockApi({
      'POST /api/recon/ticket-transaction/details': ok(groupRecords),
      // The group holds a ticket of another day too (id 4), outside these details.
      'GET /api/recon/ticket-transaction/why/right/3': ok({ record: null, candidates: [], match: { id: 7, leftId: 1, rightId: 3, leftIds: [1, 2, 4], rightIds: [3], status: 'matched', rule: 'manual', amountVariance: '0' } }),
    });
    const onUndo = vi.fn();
    wrap(<DetailsDialog level={testLevel('ticket-transaction')} row={row} reloadToken={0} onClose={() => {}} onChain={() => {}} onUndo={onUndo} onCreateTask={() => {}} />);
    await screen.findByText('1254400000002');
    fireEvent.click(screen.getByTestId('details-undo-transaction-3'));
    await waitFor(() => expect(onUndo).toHaveBeenCalled());
    expect(api.callsTo('GET', '/api/recon/ticket-transaction/why/right/3')).toHaveLength(1);
    const target = onUndo.mock.calls[0]![0] as UndoTarget;
    expect(target).toEqual({
      slug: 'ticket-transaction',
      matchId: 7,
      what: '1254400000001, 1254400000002, #4, 1254400000001',
      group: { left: { kind: 'ticket', label: 'recon.kinds.ticket', count: 3 }, right: { kind: 'transaction', label: 'recon.kinds.transaction', count: 1 } },
    });
    // The question the undo dialog then asks counts them.
    wrap(<UndoMatchDialog target={target} onClose={() => {}} onUndone={() => {}} />);
    expect(await screen.findByText(/Undo the match of 3 tickets and 1 transaction/)).toBeTruthy();
  });

  it('undoing a write-off (no counter-record: rightId 0, rightIds empty) names its records and says write-off', async () => {
    const records = {
      item1: groupRecords.item1,
      item2: [{ id: 3, ClientUniqueID: '1254400000001', ProcessingDate: '2026-11-03', currency: 'USD', Amount: '349.00', MatchStatus: null, MatchId: null }],
    };
    mockApi({
      'POST /api/recon/ticket-transaction/details': ok(records),
      'GET /api/recon/ticket-transaction/why/left/2': ok({ record: null, candidates: [], match: { id: 7, leftId: 1, rightId: 0, leftIds: [1, 2], rightIds: [], status: 'matched', rule: 'writeoff', amountVariance: '349.00' } }),
      'GET /api/recon/ticket-transaction/why/left/1': ok({ record: null, candidates: [], match: { id: 7, leftId: 1, rightId: 0, leftIds: [1], rightIds: [], status: 'matched', rule: 'writeoff', amountVariance: '250.00' } }),
    });
    const onUndo = vi.fn();
    wrap(<DetailsDialog level={testLevel('ticket-transaction')} row={row} reloadToken={0} onClose={() => {}} onChain={() => {}} onUndo={onUndo} onCreateTask={() => {}} />);
    await screen.findByText('1254400000002');
    fireEvent.click(screen.getByTestId('details-undo-ticket-2'));
    await waitFor(() => expect(onUndo).toHaveBeenCalledTimes(1));
    const target = onUndo.mock.calls[0]![0] as UndoTarget;
    expect(target).toEqual({
      slug: 'ticket-transaction',
      matchId: 7,
      what: '1254400000001, 1254400000002',
      group: { left: { kind: 'ticket', label: 'recon.kinds.ticket', count: 2 }, right: { kind: 'transaction', label: 'recon.kinds.transaction', count: 0 } },
      writeoff: true,
    });
    wrap(<UndoMatchDialog target={target} onClose={() => {}} onUndone={() => {}} />);
    expect(await screen.findByText(/Undo the write-off of 2 tickets \(1254400000001, 1254400000002\)\? Every record of it becomes unmatched again\./)).toBeTruthy();

    // One record written off (a later answer): the record alone, still a write-off.
    fireEvent.click(screen.getByTestId('details-undo-ticket-1'));
    await waitFor(() => expect(onUndo).toHaveBeenCalledTimes(2));
    expect(onUndo.mock.calls[1]![0]).toEqual({ slug: 'ticket-transaction', matchId: 7, what: 'Ticket 1254400000001', writeoff: true });
  });

  it("without the match's answer, the group is the details' records of the same match", async () => {
    // No mock for the why call: it fails, quietly, and the details' own records count.
    mockApi({ 'POST /api/recon/ticket-transaction/details': ok(groupRecords) });
    const onUndo = vi.fn();
    wrap(<DetailsDialog level={testLevel('ticket-transaction')} row={row} reloadToken={0} onClose={() => {}} onChain={() => {}} onUndo={onUndo} onCreateTask={() => {}} />);
    await screen.findByText('1254400000002');
    fireEvent.click(screen.getByTestId('details-undo-ticket-2'));
    await waitFor(() => expect(onUndo).toHaveBeenCalled());
    expect(onUndo.mock.calls[0]![0]).toMatchObject({ matchId: 7, group: { left: { count: 2 }, right: { count: 1 } } });
  });

  it("shows dates in the user's date format, in the title and both grids", async () => {
    const user = localStorage.getItem(SessionKeys.currentUser);
    localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ username: 'anna', dateFormat: 'YYYY/MM/DD HH:mm:ss' }));
    try {
      mockApi({ 'POST /api/recon/ticket-transaction/details': ok(groupRecords) });
      wrap(<DetailsDialog level={testLevel('ticket-transaction')} row={row} reloadToken={0} onClose={() => {}} onChain={() => {}} onUndo={() => {}} onCreateTask={() => {}} />);
      await screen.findByText('1254400000002');
      const dialog = screen.getByTestId('details-dialog');
      expect(dialog.textContent).toContain('USD · 2026/11/03 · CC · US');
      expect(within(screen.getByTestId('details-grid-1')).getAllByText('2026/11/03')).toHaveLength(2);
      expect(within(screen.getByTestId('details-grid-2')).getAllByText('2026/11/03')).toHaveLength(1);
      expect(dialog.textContent).not.toContain('2026-11-03');
    } finally {
      if (user === null) localStorage.removeItem(SessionKeys.currentUser);
      else localStorage.setItem(SessionKeys.currentUser, user);
    }
  });

  it('a failed load says so and shows no records', async () => {
    mockApi({ 'POST /api/recon/transaction-settlement/details': [500, { succeeded: false }] });
    wrap(
      <DetailsDialog
        level={testLevel('transaction-settlement')}
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
