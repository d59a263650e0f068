import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { useState } from 'react';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import { clearMetaCache } from '../api';
import { GridView } from '../GridView';
import { countryRows, countryView } from '../testFixtures';
import type { GridRequest, ViewMeta } from '../types';

/** Countries whose expander lists their cities (views.yaml `details`). */
const view: ViewMeta = { ...countryView, details: [{ view: 'VW_City', field: 'CountryID', title: 'views.VW_City.title' }] };
const cityView: ViewMeta = {
  name: 'VW_City',
  key: 'CityID',
  screen: 10,
  editable: false,
  defaultSort: { field: 'CityName', order: 'asc' },
  countCap: 10000,
  maxPageSize: 1000,
  columns: [
    { field: 'CityName', type: 'text', label: 'views.VW_City.fields.CityName', sortable: true, ops: [] },
    { field: 'Founded', type: 'date', label: 'views.VW_City.fields.Founded', sortable: true, ops: [] },
    { field: 'CountryID', type: 'int', label: 'x', hidden: true, sortable: true, ops: [] },
    { field: 'CityID', type: 'int', label: 'x', hidden: true, sortable: true, ops: [] },
  ],
};

function reply(cities: Record<number, number>) {
  return (body: unknown): [number, unknown] => {
    const r = body as GridRequest;
    if (r.ViewName === 'VW_City') {
      const country = r.Filters[0]!.value as number;
      const n = cities[country] ?? 0;
      const rows = Array.from({ length: Math.min(n, r.PageSize) }, (_, i) => ({ CityName: `City ${country}.${i}`, Founded: '2001-02-03', CountryID: country, CityID: country * 100 + i }));
      return ok({ dataList: rows, totalCount: n });
    }
    return ok({ dataList: countryRows(5), totalCount: 5 });
  };
}

function Where() {
  return <span data-testid="where">{useLocation().pathname}</span>;
}

function Screen() {
  const [saves, setSaves] = useState(0);
  return (
    <>
      <button type="button" data-testid="saved" onClick={() => setSaves((n) => n + 1)} />
      <GridView viewName="VW_TblMasterCountry" editRoute="dashboard/countries/edit/{id}" reloadKey={saves} />
    </>
  );
}

function renderGrid() {
  return render(
    <ToastProvider>
      <MemoryRouter initialEntries={['/dashboard/countries']}>
        <Routes>
          <Route path="*" element={<Screen />} />
        </Routes>
        <Where />
      </MemoryRouter>
    </ToastProvider>,
  );
}

const detailCalls = (api: ReturnType<typeof mockApi>) => api.callsTo('POST', '/api/grid').filter((c) => (c.body as GridRequest).ViewName === 'VW_City');

beforeEach(() => clearMetaCache());

describe('the expander row (views.yaml details)', () => {
  it("opens under its row with the detail view's records of that row, and closes again", async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(view), 'GET /api/meta/views/VW_City': ok(cityView), 'POST /api/grid': reply({ 2: 3, 3: 60 }) });
    renderGrid();
    await screen.findByText('Country 0');
    fireEvent.click(screen.getByTestId('row-expand-2'));
    const detail = await screen.findByTestId('row-detail-2');
    await within(detail).findByText('City 2.0');
    expect(detailCalls(api)[0]!.body).toEqual({
      ViewName: 'VW_City', PageSize: 50, PageNumber: 0, Filters: [{ field: 'CountryID', op: 'equals', value: 2 }], SortField: 'CityName', SortOrder: 'asc',
    });
    // Its own title and count, its visible columns, dates in the user's format.
    expect(within(detail).getByRole('heading').textContent).toBe('views.VW_City.title (3)');
    expect(within(detail).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['CityName', 'Founded']); // (no labels here: the field names)
    expect(within(detail).getAllByText('03-02-2001')).toHaveLength(3);
    // Right under its row: the row after the expanded one is the detail.
    const rows = [...document.querySelectorAll('[role="row"]')];
    const owner = rows.findIndex((r) => r.textContent?.includes('Country 1'));
    expect(rows[owner + 1]).toBe(detail.closest('[role="row"]'));
    expect(screen.getByTestId('row-expand-2').getAttribute('aria-expanded')).toBe('true');

    // A long list says it shows the first of them.
    fireEvent.click(screen.getByTestId('row-expand-3'));
    const long = await screen.findByTestId('row-detail-3');
    await within(long).findByText('The first 50 of 60.');

    fireEvent.click(screen.getByTestId('row-expand-2'));
    await waitFor(() => expect(screen.queryByTestId('row-detail-2')).toBeNull());
    expect(screen.getByTestId('row-expand-2').textContent).toBe('+');
    expect(screen.getByTestId('row-detail-3')).toBeTruthy();
  });

  it('says "None" for a row without records', async () => {
    mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(view), 'GET /api/meta/views/VW_City': ok(cityView), 'POST /api/grid': reply({}) });
    renderGrid();
    await screen.findByText('Country 0');
    fireEvent.click(screen.getByTestId('row-expand-1'));
    const detail = await screen.findByTestId('row-detail-1');
    await within(detail).findByText('None');
    expect(within(detail).getByRole('heading').textContent).toBe('views.VW_City.title (0)');
  });

  it('edits the row it is asked to when rows above it are expanded', async () => {
    const api = mockApi({
      'GET /api/meta/views/VW_TblMasterCountry': ok(view),
      'GET /api/meta/views/VW_City': ok(cityView),
      'POST /api/grid': reply({ 1: 1 }),
      'PUT /api/grid/row': ok({ ...countryRows(2)[1], CountryName: 'Renamed' }),
    });
    renderGrid();
    await screen.findByText('Country 0');
    fireEvent.click(screen.getByTestId('row-expand-1'));
    await screen.findByText('City 1.0');
    fireEvent.doubleClick(screen.getByText('Country 1').closest('[role="gridcell"]')!);
    const editor = await screen.findByTestId('editor-CountryName');
    fireEvent.change(editor, { target: { value: 'Renamed' } });
    fireEvent.keyDown(editor, { key: 'Enter' });
    await screen.findByText('Renamed');
    expect((api.callsTo('PUT', '/api/grid/row')[0]!.body as { Key: unknown }).Key).toBe(2);
    expect(screen.getByText('Country 0')).toBeTruthy();
  });

  it("opens the row's edit route on a double-click outside the cells edited in place", async () => {
    mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(view), 'GET /api/meta/views/VW_City': ok(cityView), 'POST /api/grid': reply({}) });
    renderGrid();
    await screen.findByText('Country 0');
    const amounts = await screen.findAllByText('1,234.50');
    fireEvent.doubleClick(amounts[2]!.closest('[role="gridcell"]')!);
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/dashboard/countries/edit/3'));
  });

  it("reads the page and the open rows' records again when the screen asks (its editor saved)", async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_TblMasterCountry': ok(view), 'GET /api/meta/views/VW_City': ok(cityView), 'POST /api/grid': reply({ 1: 1 }) });
    renderGrid();
    await screen.findByText('Country 0');
    fireEvent.click(screen.getByTestId('row-expand-1'));
    await screen.findByText('City 1.0');
    const pages = api.callsTo('POST', '/api/grid').length - detailCalls(api).length;
    const details = detailCalls(api).length;
    fireEvent.click(screen.getByTestId('saved'));
    await waitFor(() => expect(detailCalls(api).length).toBe(details + 1));
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length - detailCalls(api).length).toBe(pages + 1));
    expect(screen.getByTestId('row-detail-1')).toBeTruthy();
  });
});
