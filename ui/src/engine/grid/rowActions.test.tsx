import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import { clearMetaCache } from '../api';
import { GridView } from '../GridView';
import { countryRows, countryView } from '../testFixtures';
import type { ActionMeta, GridRequest } from '../types';
import { actionBody, answerValues, linkFor, selectionProblem } from './rowActions';

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
