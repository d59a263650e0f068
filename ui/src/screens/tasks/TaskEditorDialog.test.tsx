import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import i18n from '../../i18n';
import { SessionKeys } from '../../auth/session';
import { seedSession } from '../../test/helpers';
import { ToastProvider } from '../../shell/toast';
import { created, fail, mockApi, ok } from '../../test/apiMock';
import { TaskEditorDialog, type TaskEditorDialogProps } from './TaskEditorDialog';

const users = [{ id: 2, userId: 2, username: 'tasker', firstName: 'Tia', lastName: 'Sker' }];
const task = {
  id: 7, taskName: 'Review', assignedToId: null, assignedToName: null, isStatus: 1, statusLabel: 'New', remarks: null, priority: null,
  createdBy: 'admin', createdOn: '2026-11-24T10:00:00Z', updatedOn: '2026-11-24T10:00:00.123456Z', totalAmount: '150.00', balance: '20.005',
  ticketIds: [1, 2], transactionIds: [3],
};
const relations = {
  tickets: [{ ticketId: 1, ticketNumber: '1234567890100', transDate: '2026-11-02', paymentType: 'CC', countryCode: 'SE', localFareCurrency: 'SEK', transactionCode: 'T', totalFareIncludesFee: '150.00' }],
  transactions: [{ transactionId: 3, clientUniqueId: '1234567890100', date: '2026-11-03', acquiringBank: 'A', paymentMethod: 'Visa', currency: 'SEK', transactionType: 'Sale', amount: '129.995', isManualAdjust: false, remarks: '', createdBy: 'x' }],
  ticketCount: 1, transactionCount: 1, ticketTotal: '150.00', transactionTotal: '129.995', balance: '20.005',
};

function renderEditor(props: Partial<TaskEditorDialogProps>) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  render(
    <ToastProvider>
      <TaskEditorDialog mode="create" onClose={onClose} onSaved={onSaved} {...props} />
    </ToastProvider>,
  );
  return { onSaved, onClose };
}

describe('TaskEditorDialog', () => {
  it('creates a task with the pre-filled name and links and shows the success view', async () => {
    const api = mockApi({ 'GET /api/Users/list': ok(users), 'POST /api/TaskTT/with-items': created({ ...task, id: 12 }) });
    const { onSaved } = renderEditor({ initial: { taskName: 'Reconciliation Review (1T / 1X)', remarks: 'Linked automatically', ticketIds: [1], transactionIds: [3] } });
    expect((screen.getByTestId('task-name') as HTMLInputElement).value).toBe('Reconciliation Review (1T / 1X)');
    // Ids without a known reference: chips by id; the ids themselves behind the toggle.
    expect(screen.getByTestId('task-chip-ticket-1').textContent).toContain('Ticket id 1');
    expect(screen.getByTestId('task-chip-transaction-3').textContent).toContain('Transaction id 3');
    expect(screen.queryByTestId('task-ticket-ids')).toBeNull();
    fireEvent.click(screen.getByTestId('task-ids-toggle'));
    expect((screen.getByTestId('task-ticket-ids') as HTMLInputElement).value).toBe('1');
    fireEvent.click(screen.getByTestId('task-save'));
    await screen.findByTestId('task-created');
    expect(onSaved).toHaveBeenCalled();
    expect(api.callsTo('POST', '/api/TaskTT/with-items')[0]!.body).toMatchObject({ taskName: 'Reconciliation Review (1T / 1X)', isStatus: 1, ticketIds: [1], transactionIds: [3] });
    expect(screen.getByText('Task 12 was created.')).toBeTruthy();
  });

  it('refuses ids that are not digits before calling, and keeps the dialog open with the input on a server error', async () => {
    const api = mockApi({ 'GET /api/Users/list': ok(users), 'POST /api/TaskTT/with-items': fail(400, 'ticketIds: no record with id 99.', 'ticketIds') });
    const { onSaved, onClose } = renderEditor({ initial: { taskName: 'X' } });
    fireEvent.click(screen.getByTestId('task-ids-toggle'));
    fireEvent.change(screen.getByTestId('task-ticket-ids'), { target: { value: '1, 2a' } });
    fireEvent.click(screen.getByTestId('task-save'));
    await screen.findByTestId('task-error-ticketIds');
    expect(api.callsTo('POST', '/api/TaskTT/with-items')).toHaveLength(0);
    fireEvent.change(screen.getByTestId('task-ticket-ids'), { target: { value: '99' } });
    fireEvent.click(screen.getByTestId('task-save'));
    await waitFor(() => expect(screen.getByTestId('task-error-ticketIds').textContent).toContain('no record with id 99'));
    expect((screen.getByTestId('task-ticket-ids') as HTMLInputElement).value).toBe('99');
    expect(onSaved).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it("shows 'Failed to load users' with a retry link", async () => {
    mockApi({ 'GET /api/Users/list': [fail(500, 'down'), ok(users)] });
    renderEditor({});
    fireEvent.click(await screen.findByTestId('users-retry'));
    await waitFor(() => expect(screen.queryByTestId('users-failed')).toBeNull());
  });

  it('edit: the balance, and the adjustment defaults to it rounded to 2 decimals, today, the only ticket and its currency', async () => {
    mockApi({
      'GET /api/Users/list': ok(users),
      'GET /api/TaskTT/7': ok(task),
      'GET /api/TaskTT/7/relations': ok(relations),
      'GET /api/TaskTT/7/history': ok([]),
    });
    renderEditor({ mode: 'edit', taskId: 7 });
    await waitFor(() => expect(screen.getByTestId('task-balance').textContent).toBe('20.01'));
    expect(screen.getByText('Edit Task 7')).toBeTruthy();
    fireEvent.click(screen.getByTestId('task-manual-adjust'));
    const amount = (await screen.findByTestId('adjust-amount')) as HTMLInputElement;
    expect(amount.value).toBe('20.01');
    expect(amount.getAttribute('step')).toBe('0.01');
    // Today, in the user's date format (no format: DD-MM-YYYY), in the app's date picker.
    const d = new Date();
    const today = `${String(d.getDate()).padStart(2, '0')}-${String(d.getMonth() + 1).padStart(2, '0')}-${d.getFullYear()}`;
    expect((document.getElementById('adjust-date-input') as HTMLInputElement).value).toBe(today);
    expect((screen.getByTestId('adjust-currency') as HTMLInputElement).readOnly).toBe(true);
    expect((screen.getByTestId('adjust-currency') as HTMLInputElement).value).toBe('SEK');
    // A transaction without the match fields (an older answer) is open.
    expect(within(screen.getByTestId('task-transactions')).getByTestId('match-state-3').textContent).toBe('Open');
  });

  // First user, second round, item 9: the sub-tables showed yyyy-mm-dd and the adjustment date
  // the browser's mm/dd/yyyy, whatever the user's date format.
  it("edit: the linked documents' dates and the adjustment date in the user's date format; a typed date is read in it", async () => {
    seedSession();
    const user = JSON.parse(localStorage.getItem(SessionKeys.currentUser)!) as Record<string, unknown>;
    localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ ...user, dateFormat: 'MM/DD/YYYY HH:mm:ss' }));
    const api = mockApi({
      'GET /api/Users/list': ok(users),
      'GET /api/TaskTT/7': ok(task),
      'GET /api/TaskTT/7/relations': ok(relations),
      'GET /api/TaskTT/7/history': ok([]),
      'POST /api/TaskTT/7/manual-adjust': created({ ...relations.transactions[0], transactionId: 9, isManualAdjust: true }),
    });
    renderEditor({ mode: 'edit', taskId: 7 });
    await waitFor(() => expect(within(screen.getByTestId('task-tickets')).getByText('11/02/2026')).toBeTruthy());
    expect(within(screen.getByTestId('task-transactions')).getByText('11/03/2026')).toBeTruthy();
    expect(screen.queryByText('2026-11-02')).toBeNull();
    fireEvent.click(screen.getByTestId('task-manual-adjust'));
    await screen.findByTestId('adjust-amount');
    const date = document.getElementById('adjust-date-input') as HTMLInputElement;
    expect(date.type).toBe('text');
    expect(date.placeholder).toBe('MM/DD/YYYY');
    await act(async () => {}); // the date picker's effects first (it takes its onChange in one)
    fireEvent.input(date, { target: { value: '11/20/2026' } });
    fireEvent.blur(date);
    fireEvent.click(screen.getByTestId('adjust-save'));
    await waitFor(() => expect(api.callsTo('POST', '/api/TaskTT/7/manual-adjust')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/TaskTT/7/manual-adjust')[0]!.body).toMatchObject({ date: '2026-11-20', ticketId: 1 });
    // An answer without closing (an older server): only that it was saved.
    expect(await screen.findByText('Adjustment saved')).toBeTruthy();
  });

  describe('what an adjustment did to its ticket', () => {
    const adjustment = { ...relations.transactions[0]!, transactionId: 9, amount: '20.01', isManualAdjust: true, remarks: 'rounding' };
    const routes = (closing: unknown, after: typeof relations = relations) => ({
      'GET /api/Users/list': ok(users),
      'GET /api/TaskTT/7': ok(task),
      'GET /api/TaskTT/7/relations': [ok(relations), ok(after)],
      'GET /api/TaskTT/7/history': ok([]),
      'POST /api/TaskTT/7/manual-adjust': created({ ...adjustment, matchId: null, matchStatus: null, matchRule: null, closing }),
    });
    const addAdjustment = async () => {
      await screen.findByTestId('task-balance');
      fireEvent.click(screen.getByTestId('task-manual-adjust'));
      await screen.findByTestId('adjust-amount');
      fireEvent.click(screen.getByTestId('adjust-save'));
    };

    it('closed: a success toast with the ticket and the match, and the rows show the match by adjustment', async () => {
      const matched = { matchId: 55, matchStatus: 'matched', matchRule: 'adjustment' };
      const after = {
        ...relations,
        transactions: [{ ...relations.transactions[0]!, ...matched }, { ...adjustment, ...matched }],
        transactionCount: 2, transactionTotal: '150.005', balance: '-0.005',
      };
      const closing = {
        closed: true,
        match: { id: 55, status: 'matched', rule: 'adjustment', leftIds: [1], rightIds: [3, 9], amountVariance: '0.00' },
        difference: '0.00',
        tolerance: '0.05',
      };
      const api = mockApi(routes(closing, after));
      renderEditor({ mode: 'edit', taskId: 7 });
      await addAdjustment();
      const message = await screen.findByText('Ticket 1234567890100 is now matched by adjustment (match 55).');
      expect(message.closest('.p-toast-message-success')).toBeTruthy();
      expect(screen.queryByText('Adjustment saved', { selector: '.p-toast-detail' })).toBeNull();
      // The relations were read again: both rows are in the match, by adjustment.
      await waitFor(() => expect(screen.getByTestId('match-state-9').textContent).toBe('Matched · by adjustment'));
      expect(screen.getByTestId('match-state-3').textContent).toBe('Matched · by adjustment');
      expect(api.callsTo('GET', '/api/TaskTT/7/relations')).toHaveLength(2);
      expect(screen.queryByTestId('adjust-amount')).toBeNull();
    });

    it('kept for a second user\'s approval: an info toast, the adjustment form closes, nothing is added yet', async () => {
      const api = mockApi({
        ...routes(null),
        'POST /api/TaskTT/7/manual-adjust': [
          202,
          { succeeded: false, data: null, error: 'Sent for approval (request 41): ...', code: 'approvals.pending', params: { id: 41, action: 'adjustment' } },
        ],
      });
      renderEditor({ mode: 'edit', taskId: 7 });
      await addAdjustment();
      const message = await screen.findByText('Sent for approval (request 41): a second user with the Approvals screen must approve it before it is carried out.');
      expect(message.closest('.p-toast-message-info')).toBeTruthy();
      await waitFor(() => expect(screen.queryByTestId('adjust-amount')).toBeNull());
      expect(document.querySelector('.p-toast-message-error')).toBeNull();
      expect(api.callsTo('POST', '/api/TaskTT/7/manual-adjust')).toHaveLength(1);
    });

    it.each([
      ['a tolerance', { difference: '1234.5', tolerance: '0.05' }, 'Ticket 1234567890100 stays open: 1,234.50 SEK still differs (accepted difference: 0.05).'],
      ['no tolerance', { difference: '-0.0040', tolerance: null }, 'Ticket 1234567890100 stays open: -0.004 SEK still differs (the amounts must be equal).'],
      ['no difference known', { difference: null, tolerance: '0.05' }, 'Ticket 1234567890100 stays open: its amounts cannot be compared.'],
    ])('still open with %s: a warning with what still differs, and the adjustment is open', async (_, closing, text) => {
      const after = { ...relations, transactions: [...relations.transactions, adjustment], transactionCount: 2 };
      const api = mockApi(routes({ closed: false, ...closing }, after));
      renderEditor({ mode: 'edit', taskId: 7 });
      await addAdjustment();
      const message = await screen.findByText(text);
      expect(message.closest('.p-toast-message-warn')).toBeTruthy();
      await waitFor(() => expect(screen.getByTestId('match-state-9').textContent).toBe('Open'));
      expect(api.callsTo('GET', '/api/TaskTT/7/relations')).toHaveLength(2);
    });
  });
  // First finance user, item 7: documents are found by ticket number and shown by reference, not
  // typed as database ids.
  describe('linking documents by ticket number', () => {
    const number = '1234567890123';
    const candidates = {
      tickets: [{ ticketId: 611, ticketNumber: number, transDate: '2026-11-02', paymentType: 'CC', countryCode: 'SE', localFareCurrency: 'SEK', transactionCode: 'T', totalFareIncludesFee: '150.00' }],
      transactions: [
        { transactionId: 812, clientUniqueId: number, date: '2026-11-03', acquiringBank: 'Adyen', paymentMethod: 'Visa', currency: 'SEK', transactionType: 'Sale', amount: '129.99', isManualAdjust: false, remarks: '', createdBy: 'x' },
        { transactionId: 813, clientUniqueId: number, date: '2026-11-04', acquiringBank: 'Adyen', paymentMethod: 'Visa', currency: 'SEK', transactionType: 'Sale', amount: '20.01', isManualAdjust: true, remarks: '', createdBy: 'x' },
      ],
      ticketCount: 1, transactionCount: 2, ticketTotal: '150.00', transactionTotal: '150.00', balance: '0.00',
    };
    const empty = { tickets: [], transactions: [], ticketCount: 0, transactionCount: 0, ticketTotal: '0.00', transactionTotal: '0.00', balance: '0.00' };
    const find = (value: string, how: 'enter' | 'button' = 'button') => {
      fireEvent.change(screen.getByTestId('task-link-number'), { target: { value } });
      if (how === 'enter') fireEvent.keyDown(screen.getByTestId('task-link-number'), { key: 'Enter' });
      else fireEvent.click(screen.getByTestId('task-link-find'));
    };

    it('create: a malformed number and an unknown one are told beside the field; the found ticket and transaction are ticked, shown as chips by reference, and their ids are sent', async () => {
      seedSession();
      const api = mockApi({
        'GET /api/Users/list': ok(users),
        [`GET /api/TaskTT/candidates?ticketNumber=${number}`]: ok(candidates),
        'GET /api/TaskTT/candidates?ticketNumber=9999999999999': ok(empty),
        'POST /api/TaskTT/with-items': created({ ...task, id: 12 }),
      });
      renderEditor({ initial: { taskName: 'By number' } });
      // Not 13 digits: said at once, nothing asked.
      find('12345');
      expect((await screen.findByTestId('task-link-error')).textContent).toBe('"12345" is not a ticket number: a ticket number has 13 digits.');
      expect(api.calls.filter((c) => c.url.includes('candidates'))).toHaveLength(0);
      // No document with it.
      find('9999999999999', 'enter');
      await waitFor(() => expect(screen.getByTestId('task-link-error').textContent).toBe('No ticket or transaction carries the number 9999999999999.'));
      // Found (Enter, spaces tolerated): the ticket and the transaction by reference, the id only as a second line.
      find(`1234 5678 90123`, 'enter');
      const results = await screen.findByTestId('task-link-results');
      expect(screen.queryByTestId('task-link-error')).toBeNull();
      const ticketRow = screen.getByTestId('task-link-ticket-611').closest('label')!;
      expect(ticketRow.querySelector('.task-candidate__ref')!.textContent).toBe(`${number} · 02-11-2026 · 150.00 SEK`);
      expect(ticketRow.querySelector('.task-candidate__id')!.textContent).toBe('Ticket · id 611');
      const transactionRow = screen.getByTestId('task-link-transaction-812').closest('label')!;
      expect(transactionRow.querySelector('.task-candidate__ref')!.textContent).toBe(`${number} · Adyen · 03-11-2026 · 129.99 SEK`);
      expect(transactionRow.querySelector('.task-candidate__id')!.textContent).toBe('Transaction · id 812');
      // A manual adjustment belongs to its task: not offered.
      expect(within(results).queryByTestId('task-link-transaction-813')).toBeNull();
      // Tick both: chips labelled by reference, the id small beside it.
      fireEvent.click(screen.getByTestId('task-link-ticket-611'));
      fireEvent.click(screen.getByTestId('task-link-transaction-812'));
      const ticketChip = screen.getByTestId('task-chip-ticket-611');
      expect(ticketChip.querySelector('.task-chip__ref')!.textContent).toBe(number);
      expect(ticketChip.querySelector('.task-chip__id')!.textContent).toBe('id 611');
      expect(ticketChip.getAttribute('title')).toBe(`Ticket · ${number} · 02-11-2026 · 150.00 SEK · id 611`);
      expect(screen.getByTestId('task-chip-transaction-812').querySelector('.task-chip__ref')!.textContent).toBe(`${number} · Adyen`);
      expect(within(screen.getByTestId('task-chips-tickets')).getByText('Tickets (1)')).toBeTruthy();
      // A chip's remove button unticks it; ticking again brings it back.
      fireEvent.click(screen.getByTestId('task-chip-remove-transaction-812'));
      expect(screen.queryByTestId('task-chip-transaction-812')).toBeNull();
      expect((screen.getByTestId('task-link-transaction-812') as HTMLInputElement).checked).toBe(false);
      fireEvent.click(screen.getByTestId('task-link-transaction-812'));
      expect((screen.getByTestId('task-link-ticket-611') as HTMLInputElement).checked).toBe(true);
      fireEvent.click(screen.getByTestId('task-save'));
      await screen.findByTestId('task-created');
      expect(api.callsTo('POST', '/api/TaskTT/with-items')[0]!.body).toMatchObject({ taskName: 'By number', ticketIds: [611], transactionIds: [812] });
    });

    it("the lookup's errors are in the reader's language", async () => {
      seedSession();
      await i18n.changeLanguage('sv');
      mockApi({ 'GET /api/Users/list': ok(users), 'GET /api/TaskTT/candidates?ticketNumber=9999999999999': ok(empty) });
      renderEditor({});
      find('12a');
      expect((await screen.findByTestId('task-link-error')).textContent).toBe('"12a" är inget biljettnummer: ett biljettnummer har 13 siffror.');
      find('9999999999999');
      await waitFor(() => expect(screen.getByTestId('task-link-error').textContent).toBe('Ingen biljett eller transaktion har numret 9999999999999.'));
    });

    it('edit: the linked documents show as chips by reference; a found one is added to them and the ids are sent', async () => {
      seedSession();
      const api = mockApi({
        'GET /api/Users/list': ok(users),
        'GET /api/TaskTT/7': ok({ ...task, ticketIds: [1], transactionIds: [3] }),
        'GET /api/TaskTT/7/relations': ok(relations),
        'GET /api/TaskTT/7/history': ok([]),
        [`GET /api/TaskTT/candidates?ticketNumber=${number}`]: ok(candidates),
        'PUT /api/TaskTT/7': ok(task),
      });
      renderEditor({ mode: 'edit', taskId: 7 });
      const ticketChip = await screen.findByTestId('task-chip-ticket-1');
      await waitFor(() => expect(ticketChip.querySelector('.task-chip__ref')!.textContent).toBe('1234567890100'));
      expect(screen.getByTestId('task-chip-transaction-3').querySelector('.task-chip__ref')!.textContent).toBe('1234567890100 · A');
      expect(screen.getByTestId('task-chip-transaction-3').querySelector('.task-chip__id')!.textContent).toBe('id 3');
      expect(screen.queryByText('Ticket id 1')).toBeNull();
      find(number);
      fireEvent.click(await screen.findByTestId('task-link-ticket-611'));
      expect(screen.getByTestId('task-chip-ticket-611').querySelector('.task-chip__ref')!.textContent).toBe(number);
      fireEvent.click(screen.getByTestId('task-save'));
      await waitFor(() => expect(api.callsTo('PUT', '/api/TaskTT/7')).toHaveLength(1));
      expect(api.callsTo('PUT', '/api/TaskTT/7')[0]!.body).toMatchObject({ ticketIds: [1, 611], transactionIds: [3] });
    });

    it('the lookup refused (403): a line says why, and the ids can be entered behind the toggle', async () => {
      seedSession();
      const api = mockApi({
        'GET /api/Users/list': ok(users),
        [`GET /api/TaskTT/candidates?ticketNumber=${number}`]: fail(403, 'Forbidden'),
        'POST /api/TaskTT/with-items': created({ ...task, id: 12 }),
      });
      renderEditor({ initial: { taskName: 'By id' } });
      find(number);
      expect((await screen.findByTestId('task-link-unavailable')).textContent).toContain('Finding documents by ticket number needs the Reconcile screen');
      expect(screen.queryByTestId('task-link-number')).toBeNull();
      expect(screen.queryByTestId('task-link-error')).toBeNull();
      fireEvent.click(screen.getByTestId('task-ids-toggle'));
      const ids = screen.getByTestId('task-ticket-ids') as HTMLInputElement;
      expect(ids.disabled).toBe(false);
      fireEvent.change(ids, { target: { value: '611' } });
      fireEvent.change(screen.getByTestId('task-transaction-ids'), { target: { value: '812' } });
      expect(screen.getByTestId('task-chip-ticket-611').textContent).toContain('Ticket id 611');
      fireEvent.click(screen.getByTestId('task-save'));
      await screen.findByTestId('task-created');
      expect(api.callsTo('POST', '/api/TaskTT/with-items')[0]!.body).toMatchObject({ ticketIds: [611], transactionIds: [812] });
    });

    it('without the Reconcile screen: no lookup, the links read-only, the ids shown on request', async () => {
      seedSession({ screenIds: [14] });
      const api = mockApi({
        'GET /api/Users/list': ok(users),
        'GET /api/TaskTT/7': ok({ ...task, ticketIds: [1], transactionIds: [3] }),
        'GET /api/TaskTT/7/relations': ok(relations),
        'GET /api/TaskTT/7/history': ok([]),
      });
      renderEditor({ mode: 'edit', taskId: 7 });
      await waitFor(() => expect(screen.getByTestId('task-chip-ticket-1').querySelector('.task-chip__ref')!.textContent).toBe('1234567890100'));
      expect(screen.getByTestId('task-link-unavailable').textContent).toContain('Linking tickets and transactions needs the Reconcile screen');
      expect(screen.queryByTestId('task-link-number')).toBeNull();
      expect(screen.queryByTestId('task-chip-remove-ticket-1')).toBeNull();
      fireEvent.click(screen.getByTestId('task-ids-toggle'));
      expect((screen.getByTestId('task-ticket-ids') as HTMLInputElement).disabled).toBe(true);
      expect(api.calls.filter((c) => c.url.includes('candidates'))).toHaveLength(0);
    });
  });
});
