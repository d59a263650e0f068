/**
 * GridView with the user's preferences on the server: the layout read on mount, the column
 * chooser (show / hide, pin, move, reset), a dragged header, saved filter sets, and a failed save.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ToastProvider } from '../../shell/toast';
import { fail, mockApi, ok, type Reply } from '../../test/apiMock';
import { clearMetaCache } from '../api';
import { GridView } from '../GridView';
import { countryRows, countryView, reportViewFixture } from '../testFixtures';
import type { ColumnMeta, GridRequest, ViewMeta } from '../types';

const PREFS = '/api/preferences/grid.vw_tblmastercountry';

function renderGrid(viewName = 'VW_TblMasterCountry') {
  return render(
    <ToastProvider>
      <MemoryRouter>
        <GridView viewName={viewName} />
      </MemoryRouter>
    </ToastProvider>,
  );
}

const page = ok({ dataList: countryRows(3), totalCount: 3, totalCapped: false });

function serve(stored: unknown, view: ViewMeta = countryView, put: Reply = ok(null)) {
  return mockApi({ [`GET /api/meta/views/${view.name}`]: ok(view), 'POST /api/grid': page, [`GET ${PREFS}`]: ok(stored), [`PUT ${PREFS}`]: put });
}

/** The header labels in screen order, and which of them are frozen. */
/** The header texts, pinned ones marked (wait for them: the grid lays its columns out once it has measured itself). */
function headers() {
  return screen.getAllByRole('columnheader').map((h) => `${h.textContent ?? ''}${h.className.includes('rdg-cell-frozen-start') ? ' [pinned]' : ''}`);
}

const header = (field: string) => screen.getByTestId(`header-${field}`).closest('[role="columnheader"]')!;

async function openChooser() {
  fireEvent.click(screen.getByTestId('grid-columns'));
  return screen.findByTestId('grid-columns-panel');
}

/** The body of the last preference write, once one has been made after `before` writes. */
async function nextSave(api: ReturnType<typeof mockApi>, before: number) {
  await waitFor(() => expect(api.callsTo('PUT', PREFS).length).toBeGreaterThan(before));
  return api.callsTo('PUT', PREFS).at(-1)!.body as { layout?: { order: string[]; hidden: string[]; pinned: string[]; widths: Record<string, number> }; filterSets: unknown[] };
}

beforeEach(() => clearMetaCache());

describe('GridView layout kept per user', () => {
  it("shows the user's stored layout from the first render: order, hidden and pinned columns", async () => {
    const api = serve({ layout: { order: ['Amount', 'CountryCode', 'CountryName'], hidden: ['CountryName'], pinned: ['CountryCode'], widths: { CountryCode: 222 } } });
    renderGrid();
    await screen.findByText('C00'); // the name is hidden
    await waitFor(() => expect(headers()).toEqual(['Country Code [pinned]', 'Amount']));
    expect(api.callsTo('GET', PREFS)).toHaveLength(1);
    // The widths the user dragged to come back.
    const template = (document.querySelector('.rdg') as HTMLElement).style.gridTemplateColumns;
    expect(template.split(' ')[0]).toBe('222px');
    // Reading is not a change: nothing is written back.
    expect(api.callsTo('PUT', PREFS)).toHaveLength(0);
  });

  it('pins the columns views.yaml pins while the user has no layout of their own', async () => {
    const view: ViewMeta = { ...countryView, columns: countryView.columns.map((c) => (c.field === 'Amount' ? { ...c, pinned: true } : c)) };
    serve({}, view);
    renderGrid();
    await screen.findByText('Country 0');
    await waitFor(() => expect(headers()).toEqual(['Amount [pinned]', 'Country Code', 'Country Name']));
  });

  it('hides, pins and moves columns from the chooser, writes each change a moment later, and resets the layout', async () => {
    const api = serve({});
    renderGrid();
    await screen.findByText('Country 0');
    const panel = await openChooser();
    expect([...panel.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['Country Code', 'Country Name', 'Amount']);
    expect((screen.getByTestId('grid-columns-reset') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByTestId('column-show-CountryName').querySelector('input')!);
    await waitFor(() => expect(headers()).toEqual(['Country Code', 'Amount']));
    let saved = await nextSave(api, 0);
    expect(saved.layout).toMatchObject({ order: ['CountryCode', 'CountryName', 'Amount'], hidden: ['CountryName'], pinned: [] });

    let writes = api.callsTo('PUT', PREFS).length;
    fireEvent.click(screen.getByTestId('column-pin-Amount'));
    await waitFor(() => expect(headers()).toEqual(['Amount [pinned]', 'Country Code']));
    saved = await nextSave(api, writes);
    expect(saved.layout).toMatchObject({ order: ['Amount', 'CountryCode', 'CountryName'], pinned: ['Amount'] });

    writes = api.callsTo('PUT', PREFS).length;
    fireEvent.click(screen.getByTestId('column-up-CountryName')); // hidden: only the order changes
    fireEvent.click(screen.getByTestId('column-down-Amount')); // out of the pinned ones
    await waitFor(() => expect(headers()).toEqual(['Amount', 'Country Code']));
    saved = await nextSave(api, writes);
    expect(saved.layout).toMatchObject({ order: ['CountryName', 'Amount', 'CountryCode'], pinned: [] });

    writes = api.callsTo('PUT', PREFS).length;
    fireEvent.click(screen.getByTestId('grid-columns-reset'));
    await waitFor(() => expect(headers()).toEqual(['Country Code', 'Country Name', 'Amount']));
    saved = await nextSave(api, writes);
    expect(saved).toEqual({ filterSets: [] }); // no layout: the default one, whatever it becomes
  });

  it('keeps the last shown column: its check box cannot be cleared', async () => {
    serve({ layout: { order: ['CountryCode', 'CountryName', 'Amount'], hidden: ['CountryName', 'Amount'], pinned: [] } });
    renderGrid();
    await screen.findByText('C00');
    await openChooser();
    expect(screen.getByTestId('column-show-CountryCode').querySelector('input')!.disabled).toBe(true);
  });

  it('moves a column dragged onto another header to its place', async () => {
    const api = serve({});
    renderGrid();
    await screen.findByText('Country 0');
    // (the rows can show before every header of the layout does)
    await screen.findByTestId('header-Amount');
    const dataTransfer = { setDragImage: () => undefined, dropEffect: 'none', setData: () => undefined, getData: () => '' };
    fireEvent.dragStart(header('Amount'), { dataTransfer });
    fireEvent.dragOver(header('CountryCode'), { dataTransfer });
    fireEvent.drop(header('CountryCode'), { dataTransfer });
    await waitFor(() => expect(headers()).toEqual(['Amount', 'Country Code', 'Country Name']));
    const saved = await nextSave(api, 0);
    expect(saved.layout?.order).toEqual(['Amount', 'CountryCode', 'CountryName']);
  });

  it('keeps a width the user resized the column to (here with the keyboard: Ctrl+Arrow)', async () => {
    const api = serve({});
    renderGrid();
    await screen.findByText('Country 0');
    // jsdom lays nothing out (every width reads 0): the grid clamps the new width to the minimum.
    fireEvent.keyDown(header('CountryName'), { key: 'ArrowRight', ctrlKey: true });
    const saved = await nextSave(api, 0);
    expect(saved.layout?.widths).toEqual({ CountryName: 50 });
  });

  it('keeps working when the server refuses the write: a toast says so', async () => {
    serve({}, countryView, fail(400, 'A user keeps at most 10 preferences; this would be one more.'));
    renderGrid();
    await screen.findByText('Country 0');
    await openChooser();
    fireEvent.click(screen.getByTestId('column-pin-CountryName'));
    expect(await screen.findByText('A user keeps at most 10 preferences; this would be one more.')).toBeTruthy();
    expect(screen.getByText('Table layout not saved')).toBeTruthy();
    await waitFor(() => expect(headers()).toEqual(['Country Name [pinned]', 'Country Code', 'Amount']));
  });

  it('writes nothing over what is stored when the read failed, and says so on the first change', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(countryView), 'POST /api/grid': page, [`GET ${PREFS}`]: fail(500, 'down') });
    renderGrid();
    await screen.findByText('Country 0');
    await openChooser();
    fireEvent.click(screen.getByTestId('column-pin-Amount'));
    expect(await screen.findByText('Your saved table layout could not be read, so changes are not saved for now.')).toBeTruthy();
    await waitFor(() => expect(headers()[0]).toBe('Amount [pinned]'));
    expect(api.callsTo('PUT', PREFS)).toHaveLength(0);
  });

  it("keeps a report's frozen Status column first, before the pinned columns", async () => {
    const view = reportViewFixture('VW_TblMasterCountry', [], [
      { field: 'Day', type: 'date', label: 'Day', sortable: true, ops: ['equals'] },
      { field: 'StatusNumber', type: 'int', label: 'StatusNumber', sortable: true, ops: ['equals'] },
      { field: 'Amount', type: 'decimal', label: 'Amount', scale: 2, sortable: true, ops: ['gt'] },
      { field: 'RowKey', type: 'text', label: 'RowKey', hidden: true, sortable: false, ops: [] },
    ] as ColumnMeta[]);
    mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(view),
      'POST /api/grid': ok({ dataList: [{ RowKey: 'r1', Day: '2026-01-02', StatusNumber: 1, Amount: '5' }], totalCount: 1 }),
      [`GET ${PREFS}`]: ok({ layout: { order: ['Day', 'Amount'], hidden: [], pinned: ['Amount'] } }),
    });
    renderGrid();
    await screen.findByTestId('row-status');
    expect(headers()).toEqual(['Status [pinned]', 'Amount [pinned]', 'Day']);
    const panel = await openChooser();
    // The status is not one of the columns to arrange: it is always there, first.
    expect([...panel.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['Amount', 'Day']);
  });
});

describe('GridView saved filter sets', () => {
  it('saves the filters and sort under a name, applies a set, and deletes one', async () => {
    const api = serve({ filterSets: [{ name: 'By code', filters: {}, sort: { field: 'CountryCode', order: 'desc' } }] });
    renderGrid();
    await screen.findByText('Country 0');

    // A filter typed into a column's popover ...
    fireEvent.click(screen.getByTestId('filter-CountryName'));
    fireEvent.change(await screen.findByTestId('filter-value-CountryName'), { target: { value: 'land' } });
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).Filters).toEqual([{ field: 'CountryName', op: 'contains', value: 'land' }]));

    // ... saved under a name.
    fireEvent.click(screen.getByTestId('grid-filter-sets'));
    fireEvent.click(await screen.findByTestId('grid-filter-sets-save'));
    const name = await screen.findByTestId('filter-set-name');
    fireEvent.change(name, { target: { value: '  Lands ' } });
    fireEvent.keyDown(name, { key: 'Enter' });
    expect(await screen.findByText('Filters saved as Lands')).toBeTruthy();
    const saved = await nextSave(api, 0);
    expect(saved.filterSets).toEqual([
      { name: 'By code', filters: {}, sort: { field: 'CountryCode', order: 'desc' } },
      { name: 'Lands', filters: { CountryName: { op: 'contains', value: 'land' } }, sort: null },
    ]);
    // The toolbar names the set the grid shows.
    await waitFor(() => expect(screen.getByTestId('grid-filter-sets').textContent).toBe('Lands'));

    // Another set: its sort, and no filter.
    fireEvent.click(screen.getByTestId('grid-filter-sets'));
    fireEvent.click(await screen.findByTestId('filter-set-By code'));
    await waitFor(() => {
      const body = api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest;
      expect([body.Filters, body.SortField, body.SortOrder, body.PageNumber]).toEqual([[], 'CountryCode', 'desc', 0]);
    });
    expect(screen.getByTestId('grid-filter-sets').textContent).toBe('By code');

    // Back to the saved one: its filter again.
    fireEvent.click(screen.getByTestId('grid-filter-sets'));
    fireEvent.click(await screen.findByTestId('filter-set-Lands'));
    await waitFor(() => {
      const body = api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest;
      expect([body.Filters, body.SortField]).toEqual([[{ field: 'CountryName', op: 'contains', value: 'land' }], 'CountryName']);
    });

    const writes = api.callsTo('PUT', PREFS).length;
    fireEvent.click(screen.getByTestId('grid-filter-sets'));
    fireEvent.click(await screen.findByTestId('filter-set-delete-By code'));
    const after = await nextSave(api, writes);
    expect(after.filterSets).toEqual([{ name: 'Lands', filters: { CountryName: { op: 'contains', value: 'land' } }, sort: null }]);
  });

  it('writes a change still waiting when the grid goes away', async () => {
    const api = serve({});
    const { unmount } = renderGrid();
    await screen.findByText('Country 0');
    await openChooser();
    fireEvent.click(screen.getByTestId('column-pin-Amount'));
    expect(api.callsTo('PUT', PREFS)).toHaveLength(0); // still waiting for its moment
    act(() => unmount());
    expect(api.callsTo('PUT', PREFS)).toHaveLength(1);
    expect((api.callsTo('PUT', PREFS)[0]!.body as { layout: { pinned: string[] } }).layout.pinned).toEqual(['Amount']);
  });
});
