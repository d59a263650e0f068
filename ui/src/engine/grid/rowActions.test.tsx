import { beforeEach, describe, expect, it } from 'vitest';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import { clearMetaCache } from '../api';
import { GridView } from '../GridView';
import { countryRows, countryView } from '../testFixtures';
import type { ActionMeta, GridRequest } from '../types';
import { actionBody, actionPath, answerValues, linkFor, selectionProblem, sentValues } from './rowActions';

const assign: ActionMeta = {
  id: 'assign',
  label: 'Assign',
  icon: 'pi-user',
  method: 'POST',
  path: '/things/assign',
  selection: true,
  send: ['CountryCode', 'Amount'],
  inputs: [
    { name: 'assignedToId', label: 'Assign to', type: 'select', required: true, options: '/Users/list', optionValue: 'id', optionLabel: 'username' },
    { name: 'reason', label: 'Reason', type: 'textarea', required: true, maxLength: 100 },
  ],
  success: 'messages.assigned',
  failure: 'Could not assign',
};
const chain: ActionMeta = { id: 'chain', label: 'Open', icon: 'pi-x', method: '', path: '', selection: true, one: true, link: '/dashboard/x?code={CountryCode}', success: '', failure: '' };
/** As the approvals' reopen: its path and a body key from the one chosen row, and a required reason. */
const reopen: ActionMeta = {
  id: 'reopen',
  label: 'actions.reopenPeriod',
  icon: 'pi-lock-open',
  method: 'POST',
  path: '/periods/{CountryCode}/reopen',
  selection: true,
  one: true,
  rowFields: { level: 'CountryName' },
  inputs: [{ name: 'reason', label: 'actions.inputReason', type: 'textarea', required: true, maxLength: 1000 }],
  success: 'messages.periodReopened',
  failure: 'messages.periodReopenFailed',
};
/** As the approvals' close: no selection, a month in the path, an optional translated select. */
const close: ActionMeta = {
  id: 'close',
  label: 'actions.closePeriod',
  icon: 'pi-lock',
  method: 'POST',
  path: '/periods/{month}/close',
  inputs: [
    { name: 'month', label: 'actions.inputMonth', type: 'month', required: true },
    { name: 'level', label: 'actions.inputLevel', type: 'select', options: '/recon/levels', optionValue: 'slug', optionLabel: 'name', translate: true, placeholder: 'actions.allLevels' },
  ],
  confirm: 'messages.closeConfirm',
  success: 'messages.periodClosed',
  failure: 'messages.periodCloseFailed',
};

describe('row actions', () => {
  it('sends the chosen rows as items of their send fields, then the inputs', () => {
    const rows = [{ CountryCode: 'SE', Amount: '1', CountryID: 7 }, { CountryCode: 'NO', CountryID: 8 }];
    expect(actionBody(assign, rows, 'CountryID', { reason: 'x' })).toEqual({
      items: [{ CountryCode: 'SE', Amount: '1' }, { CountryCode: 'NO', Amount: null }],
      reason: 'x',
    });
    // no send fields: the key
    expect(actionBody({ ...assign, send: undefined }, rows, 'CountryID', {})).toEqual({ items: [{ CountryID: 7 }, { CountryID: 8 }] });
    // an action without selection sends only its inputs
    expect(actionBody({ ...assign, selection: false }, rows, 'CountryID', { a: 1 })).toEqual({ a: 1 });
  });

  it('fills the path from the one chosen row, else from the inputs, encoded', () => {
    const row = { CountryCode: 'S/E', CountryName: 'Sweden', CountryID: 7 };
    expect(actionPath(reopen, [row], { reason: 'x' })).toBe('/periods/S%2FE/reopen');
    expect(actionPath(close, [], { month: '2026-10', level: null })).toBe('/periods/2026-10/close');
    // the row's field comes first; an input of another name fills the rest
    expect(actionPath({ ...reopen, path: '/x/{CountryID}/{reason}' }, [row], { reason: 'a b', CountryID: 9 })).toBe('/x/7/a%20b');
    // several chosen rows: no row fills a path
    expect(actionPath({ ...reopen, path: '/x/{CountryID}' }, [row, row], { CountryID: 3 })).toBe('/x/3');
    // a path without names is left as it is
    expect(actionPath(assign, [row], {})).toBe('/things/assign');
  });

  it('sends rowFields of the one chosen row instead of items, and an empty optional month as null', () => {
    const row = { CountryCode: 'SE', CountryName: 'Sweden', CountryID: 7, Level: null };
    expect(actionBody(reopen, [row], 'CountryID', { reason: 'wrong month' })).toEqual({ level: 'Sweden', reason: 'wrong month' });
    // a field without a value is sent as null
    expect(actionBody({ ...reopen, rowFields: { level: 'Level' } }, [row], 'CountryID', {})).toEqual({ level: null });
    // with send fields, the items go too
    expect(actionBody({ ...reopen, send: ['CountryCode'] }, [row], 'CountryID', {})).toEqual({ items: [{ CountryCode: 'SE' }], level: 'Sweden' });
    expect(sentValues(close.inputs!, { month: '', level: null })).toEqual({ month: null, level: null });
    expect(sentValues(close.inputs!, { month: '2026-10', level: 'x' })).toEqual({ month: '2026-10', level: 'x' });
  });

  it('fills a link from the row, encoded', () => {
    expect(linkFor('/dashboard/bank-settlement?chain={Kind}:{RecordId}', { Kind: 'ticket', RecordId: 12 })).toBe('/dashboard/bank-settlement?chain=ticket:12');
    expect(linkFor('/x?q={Ref}', { Ref: 'a&b c' })).toBe('/x?q=a%26b%20c');
  });

  it('counts an answer for the toast and says when the choice does not fit', () => {
    expect(answerValues({ created: { id: 1 }, updated: [3, 4], skipped: 2 }, 5)).toEqual({ count: 5, created: 1, updated: 2, skipped: 2 });
    expect(answerValues({ created: null }, 1)).toEqual({ count: 1, created: 0 });
    expect(answerValues([{}, {}, {}], 9)).toEqual({ count: 3 });
    expect(selectionProblem(assign, 0)).toBe('grid.chooseRows');
    expect(selectionProblem(assign, 2)).toBeNull();
    expect(selectionProblem(chain, 2)).toBe('grid.chooseOne');
    expect(selectionProblem(chain, 1)).toBeNull();
  });
});

beforeEach(() => clearMetaCache());

function renderGrid(actions: ActionMeta[]) {
  return render(
    <ToastProvider>
      <MemoryRouter initialEntries={['/grid']}>
        <Routes>
          <Route path="/grid" element={<GridView viewName="VW_TblMasterCountry" actions={actions} />} />
          <Route path="/dashboard/x" element={<div data-testid="linked">linked</div>} />
        </Routes>
      </MemoryRouter>
    </ToastProvider>,
  );
}

function pageReply(body: unknown): [number, unknown] {
  const request = body as GridRequest;
  return ok({ dataList: countryRows(Math.min(request.PageSize, 5), request.PageNumber), totalCount: 5, totalCapped: false });
}

/** The check box of the row showing text. */
function checkBoxOf(text: string): HTMLElement {
  const row = screen.getByText(text).closest('[role="row"]')!;
  return row.querySelector('input[type="checkbox"]')!;
}

describe('GridView with row actions', () => {
  it('asks for the inputs, refuses without the required ones, then posts the chosen rows and says what happened', async () => {
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'GET /api/Users/list': ok([{ id: 4, username: 'rita' }, { id: 5, username: 'olga' }]),
      'POST /api/things/assign': ok({ created: null, updated: [1, 2], skipped: 0 }),
    });
    renderGrid([assign]);
    await screen.findByText('Country 1');
    const button = screen.getByTestId('grid-action-assign');
    expect((button as HTMLButtonElement).disabled).toBe(true); // nothing chosen yet
    fireEvent.click(checkBoxOf('Country 1'));
    // the page read again (a refresh) keeps the choice of the rows still on it
    const reads = api.callsTo('POST', '/api/grid').length;
    fireEvent.click(screen.getByTestId('grid-refresh'));
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBeGreaterThan(reads));
    await waitFor(() => expect(screen.getByTestId('grid-chosen').textContent).toBe('1 chosen'));
    fireEvent.click(checkBoxOf('Country 3'));
    await waitFor(() => expect(screen.getByTestId('grid-chosen').textContent).toBe('2 chosen'));
    expect((button as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(button);
    await screen.findByTestId('action-dialog-assign');
    fireEvent.click(screen.getByTestId('action-apply'));
    // both inputs are required: nothing is sent
    expect(await screen.findAllByText(/is required/)).toHaveLength(2);
    expect(api.callsTo('POST', '/api/things/assign')).toHaveLength(0);
    fireEvent.change(screen.getByTestId('action-assign-reason'), { target: { value: 'late payer' } });
    // choose rita in the dropdown
    fireEvent.click(screen.getByTestId('action-assign-assignedToId'));
    fireEvent.click(await screen.findByText('rita'));
    fireEvent.click(screen.getByTestId('action-apply'));
    await waitFor(() => expect(api.callsTo('POST', '/api/things/assign')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/things/assign')[0]!.body).toEqual({
      items: [{ CountryCode: 'C01', Amount: '1234.5' }, { CountryCode: 'C03', Amount: '1234.5' }],
      assignedToId: 4,
      reason: 'late payer',
    });
    expect(await screen.findByText('Assigned: 0 new task, 2 tasks reassigned')).toBeTruthy();
    // the grid reads its page again and the choice is gone
    await waitFor(() => expect(screen.queryByTestId('grid-chosen')).toBeNull());
  });

  it('opens a link for exactly one chosen row', async () => {
    mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    renderGrid([chain]);
    await screen.findByText('Country 1');
    const button = screen.getByTestId('grid-action-chain');
    fireEvent.click(checkBoxOf('Country 1'));
    fireEvent.click(checkBoxOf('Country 2'));
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(true));
    fireEvent.click(checkBoxOf('Country 2'));
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(button);
    expect(await screen.findByTestId('linked')).toBeTruthy();
  });
});

describe('GridView with the approvals screen\'s kinds of action', () => {
  it('reopen: the path and a body key from the chosen row, the reason typed', async () => {
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'POST /api/periods/C01/reopen': ok({ id: 3 }),
    });
    renderGrid([reopen]);
    await screen.findByText('Country 1');
    fireEvent.click(checkBoxOf('Country 1'));
    fireEvent.click(await screen.findByTestId('grid-action-reopen'));
    const dialog = await screen.findByTestId('action-dialog-reopen');
    expect(dialog.textContent).toContain('Reopen period · 1 chosen');
    fireEvent.change(screen.getByTestId('action-reopen-reason'), { target: { value: 'booked in the wrong month' } });
    fireEvent.click(screen.getByTestId('action-apply'));
    await waitFor(() => expect(api.callsTo('POST', '/api/periods/C01/reopen')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/periods/C01/reopen')[0]!.body).toEqual({ level: 'Country 1', reason: 'booked in the wrong month' });
    expect(await screen.findByText('Period reopened')).toBeTruthy();
  });

  it('close: a month typed in the user format goes in the path; the level select shows translated names, every level while empty (null)', async () => {
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'GET /api/recon/levels': ok([
        { slug: 'ticket-transaction', name: 'recon.tabs.ticketTransaction' },
        { slug: 'settlement-bank', name: 'recon.tabs.settlementBank' },
      ]),
      'POST /api/periods/2026-10/close': ok({ id: 1 }),
      'POST /api/periods/2026-09/close': ok({ id: 2 }),
    });
    renderGrid([close]);
    await screen.findByText('Country 1');
    fireEvent.click(screen.getByTestId('grid-action-close'));
    const dialog = await screen.findByTestId('action-dialog-close');
    // no rows are chosen for it, so none are counted
    expect(dialog.textContent).toContain('Close period');
    expect(dialog.textContent).not.toContain('chosen');
    expect(dialog.textContent).toContain('Close it?');
    // the month is required
    fireEvent.click(screen.getByTestId('action-apply'));
    expect(await screen.findByText('Month is required')).toBeTruthy();
    expect(api.callsTo('POST', '/api/periods/2026-10/close')).toHaveLength(0);
    const month = document.getElementById('action-close-month') as HTMLInputElement;
    expect(month.placeholder).toBe('MM-YYYY');
    await act(async () => {}); // the date picker's effects first (it takes its onChange in one)
    fireEvent.input(month, { target: { value: '10-2026' } });
    fireEvent.blur(month);
    await waitFor(() => expect(month.value).toBe('10-2026'));
    // nothing chosen: the placeholder says what that means
    await waitFor(() => expect(api.callsTo('GET', '/api/recon/levels')).toHaveLength(1));
    expect(screen.getByTestId('action-close-level').textContent).toContain('Every level');
    fireEvent.click(screen.getByTestId('action-apply'));
    await waitFor(() => expect(api.callsTo('POST', '/api/periods/2026-10/close')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/periods/2026-10/close')[0]!.body).toEqual({ month: '2026-10', level: null });
    expect(await screen.findByText('Period closed')).toBeTruthy();

    // again, for one level chosen by its translated name
    await waitFor(() => expect(screen.queryByTestId('action-dialog-close')).toBeNull());
    fireEvent.click(screen.getByTestId('grid-action-close'));
    await screen.findByTestId('action-dialog-close');
    const again = document.getElementById('action-close-month') as HTMLInputElement;
    await act(async () => {}); // the date picker's effects first (it takes its onChange in one)
    fireEvent.input(again, { target: { value: '09-2026' } });
    fireEvent.blur(again);
    fireEvent.click(screen.getByTestId('action-close-level'));
    fireEvent.click(await screen.findByText('Settlements vs Bank'));
    fireEvent.click(screen.getByTestId('action-apply'));
    await waitFor(() => expect(api.callsTo('POST', '/api/periods/2026-09/close')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/periods/2026-09/close')[0]!.body).toEqual({ month: '2026-09', level: 'settlement-bank' });
  });

  it('an action kept for a second user\'s approval (202) says so in an info toast and is done like a success', async () => {
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'POST /api/periods/C02/reopen': [
        202,
        { succeeded: false, data: null, error: 'Sent for approval (request 12): a second user ...', code: 'approvals.pending', params: { id: 12, action: 'writeoff' } },
      ],
    });
    renderGrid([reopen]);
    await screen.findByText('Country 2');
    fireEvent.click(checkBoxOf('Country 2'));
    fireEvent.click(await screen.findByTestId('grid-action-reopen'));
    await screen.findByTestId('action-dialog-reopen');
    fireEvent.change(screen.getByTestId('action-reopen-reason'), { target: { value: 'x' } });
    const reads = api.callsTo('POST', '/api/grid').length;
    fireEvent.click(screen.getByTestId('action-apply'));
    const toast = await screen.findByText('Sent for approval (request 12): a second user with the Approvals screen must approve it before it is carried out.');
    expect(toast.closest('.p-toast-message-info')).not.toBeNull();
    expect(screen.getByText('Waiting for approval')).toBeTruthy();
    expect(document.querySelector('.p-toast-message-error')).toBeNull();
    // the dialog closes, the choice goes and the grid reads its page again
    await waitFor(() => expect(screen.queryByTestId('action-dialog-reopen')).toBeNull());
    await waitFor(() => expect(screen.queryByTestId('grid-chosen')).toBeNull());
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBeGreaterThan(reads));
  });
});
