import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ToastProvider } from '../shell/toast';
import { fail, mockApi, ok } from '../test/apiMock';
import { clearMetaCache } from './api';
import { GridView } from './GridView';
import { countryRows, countryView } from './testFixtures';
import type { GridRequest } from './types';

function renderGrid() {
  return render(
    <ToastProvider>
      <MemoryRouter>
        <GridView viewName="VW_TblMasterCountry" />
      </MemoryRouter>
    </ToastProvider>,
  );
}

/** A server answering pages of 250 countries. */
function pageReply(body: unknown): [number, unknown] {
  const request = body as GridRequest;
  return ok({ dataList: countryRows(Math.min(request.PageSize, 250 - request.PageNumber), request.PageNumber), totalCount: 250, totalCapped: false });
}

beforeEach(() => clearMetaCache());

describe('GridView', () => {

  it('renders the visible columns from the metadata and asks for the first page with the default sort', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    renderGrid();
    await screen.findByText('Country 0');
    // (the grid lays its columns out once it has measured itself: on a busy machine after the rows)
    await waitFor(() => expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Country Code', 'Country Name', 'Amount']));
    expect(api.callsTo('POST', '/api/grid')[0]!.body).toEqual({
      ViewName: 'VW_TblMasterCountry',
      PageSize: 100,
      PageNumber: 0,
      Filters: [],
      SortField: 'CountryName',
      SortOrder: 'asc',
    });
    expect(screen.getByTestId('grid-total').textContent).toBe('250 rows');
    expect(screen.getAllByText('1,234.50').length).toBeGreaterThan(0);
    // 100 rows loaded, far fewer in the DOM: the grid virtualises.
    expect(document.querySelectorAll('.rdg-row').length).toBeLessThan(100);
  });

  it('sorts asc, desc, then back to the default on header clicks', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    renderGrid();
    await screen.findByText('Country 0');
    const header = screen.getByTestId('header-CountryCode').closest('[role="columnheader"]')!;
    for (const expected of [['CountryCode', 'asc'], ['CountryCode', 'desc'], ['CountryName', 'asc']]) {
      const before = api.callsTo('POST', '/api/grid').length;
      fireEvent.click(header);
      await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBe(before + 1));
      const body = api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest;
      expect([body.SortField, body.SortOrder]).toEqual(expected);
    }
  });

  it('goes back to the default sort on Refresh', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    renderGrid();
    await screen.findByText('Country 0');
    fireEvent.click(screen.getByTestId('header-CountryCode').closest('[role="columnheader"]')!);
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).SortField).toBe('CountryCode'));
    const before = api.callsTo('POST', '/api/grid').length;
    fireEvent.click(screen.getByTestId('grid-refresh'));
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBe(before + 1));
    const body = api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest;
    expect([body.SortField, body.SortOrder]).toEqual(['CountryName', 'asc']);
  });

  it('pages by row offset and filters from the first page after a pause', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    renderGrid();
    await screen.findByText('Country 0');
    fireEvent.click(document.querySelector('.p-paginator-next')!);
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).PageNumber).toBe(100));

    fireEvent.click(screen.getByTestId('filter-CountryName'));
    const input = await screen.findByTestId('filter-value-CountryName');
    fireEvent.change(input, { target: { value: 'land' } });
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).Filters).toEqual([{ field: 'CountryName', op: 'contains', value: 'land' }]));
    const last = api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest;
    expect(last.PageNumber).toBe(0);
    expect(screen.getByTestId('filter-CountryName').className).toContain('is-active');
  });

  it('saves an inline edit with the row version and restores the old value on 409', async () => {
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'PUT /api/grid/row': [fail(409, 'This row was changed by someone else.'), ok({ ...countryRows(1)[0], CountryName: 'Renamed', UpdatedOn: '2026-02-02T00:00:00Z' })],
    });
    renderGrid();
    const cell = await screen.findByText('Country 0');

    fireEvent.doubleClick(cell.closest('[role="gridcell"]')!);
    const editor = await screen.findByTestId('editor-CountryName');
    fireEvent.change(editor, { target: { value: 'Renamed' } });
    fireEvent.keyDown(editor, { key: 'Enter' });

    await screen.findByText('This row was changed by someone else.');
    expect(api.callsTo('PUT', '/api/grid/row')[0]!.body).toEqual({
      ViewName: 'VW_TblMasterCountry',
      Key: 1,
      Values: { CountryName: 'Renamed' },
      Version: '2026-01-01T00:00:00Z',
    });
    await waitFor(() => expect(screen.getByText('Country 0')).toBeTruthy());
    expect(screen.queryByText('Renamed')).toBeNull();

    // Second try succeeds: the saved row from the server is shown.
    fireEvent.doubleClick(screen.getByText('Country 0').closest('[role="gridcell"]')!);
    const again = await screen.findByTestId('editor-CountryName');
    fireEvent.change(again, { target: { value: 'Renamed' } });
    fireEvent.keyDown(again, { key: 'Enter' });
    await screen.findByText('Renamed');
    expect(api.callsTo('PUT', '/api/grid/row')).toHaveLength(2);
  });

  it('an inline edit kept for a second user\'s approval (202) shows the stored value again with an info toast, and so does a delete', async () => {
    const pending = (id: number): [number, unknown] => [
      202,
      { succeeded: false, data: null, error: `Sent for approval (request ${id}): ...`, code: 'approvals.pending', params: { id, action: 'tolerance' } },
    ];
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'PUT /api/grid/row': pending(21),
      'GET /api/meta/forms/country': ok({ name: 'country', resource: 'Country' }),
      'DELETE /api/Country/1': pending(22),
    });
    render(
      <ToastProvider>
        <MemoryRouter>
          <GridView viewName="VW_TblMasterCountry" deleteForm="country" />
        </MemoryRouter>
      </ToastProvider>,
    );
    const cell = await screen.findByText('Country 0');
    fireEvent.doubleClick(cell.closest('[role="gridcell"]')!);
    const editor = await screen.findByTestId('editor-CountryName');
    fireEvent.change(editor, { target: { value: 'Renamed' } });
    fireEvent.keyDown(editor, { key: 'Enter' });
    const toast = await screen.findByText(/^Sent for approval \(request 21\)/);
    expect(toast.closest('.p-toast-message-info')).not.toBeNull();
    await waitFor(() => expect(screen.getByText('Country 0')).toBeTruthy());
    expect(screen.queryByText('Renamed')).toBeNull();

    fireEvent.click(screen.getByTestId('row-delete-1'));
    await waitFor(() => expect(document.querySelector('.p-confirm-dialog-accept')).not.toBeNull());
    fireEvent.click(document.querySelector('.p-confirm-dialog-accept')!);
    const deleted = await screen.findByText(/^Sent for approval \(request 22\)/);
    expect(deleted.closest('.p-toast-message-info')).not.toBeNull();
    expect(api.callsTo('DELETE', '/api/Country/1')).toHaveLength(1);
    expect(document.querySelector('.p-toast-message-error')).toBeNull();
  });

  it('does not call the server when an edit leaves the value as it was', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    renderGrid();
    const cell = await screen.findByText('C00');
    fireEvent.doubleClick(cell.closest('[role="gridcell"]')!);
    const editor = await screen.findByTestId('editor-CountryCode');
    expect(editor.getAttribute('maxlength')).toBe('3');
    fireEvent.change(editor, { target: { value: 'C00' } });
    fireEvent.keyDown(editor, { key: 'Enter' });
    await waitFor(() => expect(screen.queryByTestId('editor-CountryCode')).toBeNull());
    expect(api.callsTo('PUT', '/api/grid/row')).toHaveLength(0);
  });

  it('shows the empty state and a capped total', async () => {
    mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': ok({ dataList: [], totalCount: 0, totalCapped: false }),
    });
    renderGrid();
    expect(await screen.findByText('No records found')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('grid-total').textContent).toBe('0 rows'));
  });

  it('says it is loading, not "0 rows", before the first page arrives', async () => {
    let answer: (r: Response) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        url.includes('/meta/views/')
          ? new Response(JSON.stringify({ succeeded: true, data: countryView }))
          : url.includes('/preferences/')
            ? new Response(JSON.stringify({ succeeded: true, data: {} }))
            : new Promise<Response>((resolve) => {
                answer = resolve;
              }),
      ),
    );
    renderGrid();
    await waitFor(() => expect(screen.getByTestId('grid-total').textContent).toBe('Loading…'));
    answer(new Response(JSON.stringify({ succeeded: true, data: { dataList: countryRows(2), totalCount: 2, totalCapped: false } })));
    await waitFor(() => expect(screen.getByTestId('grid-total').textContent).toBe('2 rows'));
  });

  it('shows "10,000+ rows" when the server stopped counting', async () => {
    mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': ok({ dataList: countryRows(3), totalCount: 10000, totalCapped: true }),
    });
    renderGrid();
    await screen.findByText('Country 0');
    expect(screen.getByTestId('grid-total').textContent).toBe('10,000+ rows');
    expect(within(screen.getByTestId('grid-pager')).getByText('1–3 of 10,000+')).toBeTruthy();
  });

  it('shows status badges: Success in green, anything else (empty too) as ERROR in red', async () => {
    const view = {
      ...countryView,
      columns: [
        ...countryView.columns,
        {
          field: 'Status',
          type: 'text' as const,
          label: 'Status',
          sortable: true,
          ops: [],
          status: { values: { Success: { label: 'SUCCESS', severity: 'success' as const } }, otherwise: { label: 'ERROR', severity: 'danger' as const } },
        },
      ],
    };
    mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(view),
      'POST /api/grid': ok({
        dataList: [{ ...countryRows(1)[0], Status: 'Success' }, { ...countryRows(1, 1)[0], Status: 'Failed' }, { ...countryRows(1, 2)[0], Status: '' }],
        totalCount: 3,
      }),
    });
    renderGrid();
    expect((await screen.findByText('SUCCESS')).className).toContain('grid-badge--success');
    const errors = screen.getAllByText('ERROR');
    expect(errors.length).toBe(2); // Failed, and the empty status
    for (const e of errors) expect(e.className).toContain('grid-badge--danger');
  });

  it('says how a toolbar action went: done, still running in the background, or failed with the server message', async () => {
    const sync = { id: 'sync', label: 'actions.syncRates', icon: 'pi-sync', method: 'POST', path: '/CurrencyExchangeRate/sync', success: 'messages.syncSucceeded', failure: 'messages.syncFailed' };
    const answers: Array<[number, unknown]> = [
      ok({ date: '2026-11-20', inserted: 8 }),
      [202, { succeeded: true, data: { jobId: 7, running: true } }],
      fail(503, 'Exchange rates could not be synchronised: the rate feed answered 502'),
    ];
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(countryView),
      'POST /api/grid': pageReply,
      'POST /api/CurrencyExchangeRate/sync': () => answers.shift()!,
    });
    render(
      <ToastProvider>
        <MemoryRouter>
          <GridView viewName="VW_TblMasterCountry" actions={[sync]} />
        </MemoryRouter>
      </ToastProvider>,
    );
    await screen.findByText('Country 0');
    const button = screen.getByTestId('grid-action-sync');
    fireEvent.click(button);
    expect(await screen.findByText('Exchange rates synchronized successfully')).toBeTruthy();
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(button);
    expect(await screen.findByText('Still running in the background; the results appear when it finishes.')).toBeTruthy();
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(button);
    expect(await screen.findByText('Exchange rates could not be synchronised: the rate feed answered 502')).toBeTruthy();
    expect(api.callsTo('POST', '/api/CurrencyExchangeRate/sync').length).toBe(3);
  });

  it('names the grid, its editors and filter inputs for assistive technology, and counts every row', async () => {
    mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': pageReply });
    render(
      <ToastProvider>
        <MemoryRouter>
          <GridView viewName="VW_TblMasterCountry" title="Country List" />
        </MemoryRouter>
      </ToastProvider>,
    );
    const cell = await screen.findByText('Country 0');
    const grid = screen.getByRole('grid');
    expect(grid.getAttribute('aria-label')).toBe('Country List');
    expect(grid.getAttribute('aria-rowcount')).toBe('251'); // 250 rows and the header, not one page
    fireEvent.doubleClick(cell.closest('[role="gridcell"]')!);
    expect((await screen.findByTestId('editor-CountryName')).getAttribute('aria-label')).toBe('Country Name');
    fireEvent.keyDown(screen.getByTestId('editor-CountryName'), { key: 'Escape' });
    fireEvent.click(screen.getByTestId('filter-CountryName'));
    const panel = await screen.findByTestId('filter-panel-CountryName');
    expect(within(panel).getByLabelText('Country Name Operator')).toBeTruthy();
    expect(within(panel).getByLabelText('Country Name Value')).toBeTruthy();
  });
});
