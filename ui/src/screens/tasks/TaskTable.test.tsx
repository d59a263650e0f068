import { describe, expect, it } from 'vitest';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { ToastProvider } from '../../shell/toast';
import { SessionKeys } from '../../auth/session';
import { seedSession } from '../../test/helpers';
import { mockApi, ok } from '../../test/apiMock';
import { TaskTable } from './TaskTable';

const task = {
  id: 7, taskName: 'Review', assignedToId: null, assignedToName: null, isStatus: 1, statusLabel: 'New', remarks: null, priority: null,
  createdBy: 'admin', createdOn: '2026-11-24T10:00:00Z', updatedOn: '2026-11-24T10:00:00Z', totalAmount: '150.00', balance: '20.00',
};
const relations = {
  tickets: [{ ticketId: 1, ticketNumber: '1234567890100', transDate: '2026-11-02', paymentType: 'CC', countryCode: 'SE', localFareCurrency: 'SEK', transactionCode: 'T', totalFareIncludesFee: '150.00' }],
  transactions: [{ transactionId: 3, clientUniqueId: '1234567890100', date: '2026-11-03', acquiringBank: 'A', paymentMethod: 'Visa', currency: 'SEK', transactionType: 'Sale', amount: '130.00', isManualAdjust: false, remarks: '', createdBy: 'x' }],
  ticketCount: 1, transactionCount: 1, ticketTotal: '150.00', transactionTotal: '130.00', balance: '20.00',
};

function signInWithFormat(dateFormat: string) {
  seedSession();
  const user = JSON.parse(localStorage.getItem(SessionKeys.currentUser)!) as Record<string, unknown>;
  localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ ...user, dateFormat }));
}

// First user, second round, item 9: the task filters' dates were the browser's mm/dd/yyyy and the
// expander's sub-tables yyyy-mm-dd, while the grids follow the user's date format.
describe('task table dates', () => {
  it("filters by a day typed in the user's date format, in the app's date picker", async () => {
    signInWithFormat('DD/MM/YYYY HH:mm:ss');
    const api = mockApi({
      'GET /api/preferences/tasks.grid': ok({}),
      'PUT /api/preferences/tasks.grid': ok(null),
      'GET /api/TaskTT/paged?page=1&pageSize=20': ok({ data: [task], total: 1 }),
      'GET /api/TaskTT/paged?page=1&pageSize=20&filters=createdOn%3A2026-11-24': ok({ data: [task], total: 1 }),
    });
    render(
      <ToastProvider>
        <TaskTable />
      </ToastProvider>,
    );
    const input = (await screen.findByLabelText('Filter Created On')) as HTMLInputElement;
    // The filter row mounts when the preferences arrive, outside act: let the date picker's
    // effects run (PrimeReact hands its onChange over in one) before typing into it.
    await act(async () => {});
    expect(input.type).toBe('text');
    expect(input.placeholder).toBe('DD/MM/YYYY');
    fireEvent.input(input, { target: { value: '24/11/2026' } });
    fireEvent.blur(input);
    await waitFor(() => expect(api.callsTo('GET', '/api/TaskTT/paged?page=1&pageSize=20&filters=createdOn%3A2026-11-24')).toHaveLength(1));
    expect(input.value).toBe('24/11/2026');
  });

  it("shows the linked documents' dates in the user's date format", async () => {
    signInWithFormat('YYYY/MM/DD HH:mm:ss');
    mockApi({
      'GET /api/preferences/tasks.grid': ok({}),
      'GET /api/TaskTT/paged?page=1&pageSize=20': ok({ data: [task], total: 1 }),
      'GET /api/TaskTT/7/relations': ok(relations),
    });
    render(
      <ToastProvider>
        <TaskTable />
      </ToastProvider>,
    );
    fireEvent.click(await screen.findByTestId('task-expand-7'));
    const detail = await screen.findByTestId('task-detail-7');
    await waitFor(() => expect(within(detail).getByText('2026/11/02')).toBeTruthy());
    expect(within(detail).getByText('2026/11/03')).toBeTruthy();
  });
});
