import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok, fail } from '../../test/apiMock';
import { clearMetaCache } from '../api';
import { GridView } from '../GridView';
import { reportViewFixture } from '../testFixtures';
import type { GridRequest, ViewMeta } from '../types';

const ops = ['equals'] as ViewMeta['columns'][number]['ops'];

const reportView = reportViewFixture('VW_Report', ['fromDate', 'currency'], [
  { field: 'RowKey', type: 'text', label: 'RowKey', hidden: true, sortable: true, ops },
  { field: 'Day', type: 'date', label: 'Day', sortable: true, ops },
  { field: 'Amount', type: 'decimal', label: 'Amount', scale: 2, sortable: true, ops },
  { field: 'StatusNumber', type: 'int', label: 'StatusNumber', hidden: true, sortable: true, ops },
]);

const rows = [
  { RowKey: 'a', Day: '2026-11-01', Amount: '1234.5', StatusNumber: 1 },
  { RowKey: 'b', Day: '2026-11-02', Amount: '10', StatusNumber: 2 },
  { RowKey: 'c', Day: '2026-11-03', Amount: '-7', StatusNumber: 3 },
];

function renderReport(props: Partial<Parameters<typeof GridView>[0]> = {}) {
  return render(
    <ToastProvider>
      <MemoryRouter>
        <GridView viewName="VW_Report" {...props} />
      </MemoryRouter>
    </ToastProvider>,
  );
}

beforeEach(() => clearMetaCache());

describe('GridView with a report view (params, rowStatus)', () => {
  it('sends the declared params only, colours rows by severity and shows the status word', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_Report': ok(reportView), 'POST /api/grid': ok({ dataList: rows, totalCount: 3 }) });
    renderReport({ params: { fromDate: '2026-11-01', currency: ['USD'], clientUniqueId: '1254400000012' } });
    await screen.findByText('Unmatched');
    const body = api.callsTo('POST', '/api/grid')[0]!.body as GridRequest;
    expect(body.Params).toEqual({ fromDate: '2026-11-01', currency: ['USD'] });
    expect(body.PageSize).toBe(100);
    const classes = [...document.querySelectorAll('.rdg-row')].map((r) => ['danger', 'warning', 'success'].find((s) => r.classList.contains(`grid-row--${s}`)));
    expect(classes).toEqual(['danger', 'warning', 'success']);
    expect([...document.querySelectorAll('[data-testid="row-status"]')].map((e) => e.textContent)).toEqual(['Unmatched', 'Partly matched', 'Matched']);
    // (the grid lays its columns out once it has measured itself: on a busy machine after the rows)
    await waitFor(() => expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Status', 'Day', 'Amount']));
    expect(screen.getByText('1,234.50').closest('.rdg-cell')!.className).toContain('grid-cell--number');
  });

  it('a status field that is a visible column too is shown once, as the status column', async () => {
    const shown = { ...reportView, columns: reportView.columns.map((c) => (c.field === 'StatusNumber' ? { ...c, hidden: false, label: 'Status number' } : c)) };
    mockApi({ 'GET /api/meta/views/VW_Report': ok(shown), 'POST /api/grid': ok({ dataList: rows, totalCount: 3 }) });
    renderReport();
    await screen.findByText('Unmatched');
    // (the grid lays its columns out once it has measured itself: on a busy machine after the rows)
    await waitFor(() => expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Status', 'Day', 'Amount']));
  });

  it('new params start over at the first page; a new reload token asks again', async () => {
    const api = mockApi({ 'GET /api/meta/views/VW_Report': ok(reportView), 'POST /api/grid': ok({ dataList: rows, totalCount: 300 }) });
    const view = renderReport({ params: { fromDate: '2026-11-01' }, reloadToken: 0 });
    await screen.findByText('Unmatched');
    fireEvent.click(document.querySelector('.p-paginator-next')!);
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).PageNumber).toBe(100));
    view.rerender(
      <ToastProvider>
        <MemoryRouter>
          <GridView viewName="VW_Report" params={{ fromDate: '2026-10-01' }} reloadToken={0} />
        </MemoryRouter>
      </ToastProvider>,
    );
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).Params).toEqual({ fromDate: '2026-10-01' }));
    expect((api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).PageNumber).toBe(0);
    const before = api.callsTo('POST', '/api/grid').length;
    view.rerender(
      <ToastProvider>
        <MemoryRouter>
          <GridView viewName="VW_Report" params={{ fromDate: '2026-10-01' }} reloadToken={1} />
        </MemoryRouter>
      </ToastProvider>,
    );
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBe(before + 1));
  });

  it('filters by status from the status column, by the statuses\' names; Open only is one such filter', async () => {
    const listed = { ...reportView, rowStatus: { ...reportView.rowStatus!, values: { ...reportView.rowStatus!.values, '3': { label: 'recon.status.matched', severity: 'success' as const } } } };
    const api = mockApi({ 'GET /api/meta/views/VW_Report': ok(listed), 'POST /api/grid': ok({ dataList: rows, totalCount: 3 }) });
    renderReport({ params: { fromDate: '2026-11-01' } });
    await screen.findByText('Unmatched');
    const lastFilters = () => (api.callsTo('POST', '/api/grid').at(-1)!.body as GridRequest).Filters;
    // Open only: the rows not matched, as a filter of the status
    fireEvent.click(screen.getByTestId('grid-open-only').querySelector('input')!);
    await waitFor(() => expect(lastFilters()).toEqual([{ field: 'StatusNumber', op: 'in', value: [1, 2] }]));
    expect(screen.getByTestId('filter-StatusNumber').className).toContain('is-active');
    // the status column's filter shows that choice by the statuses' names, and edits it
    fireEvent.click(screen.getByTestId('filter-StatusNumber'));
    const choice = await screen.findByTestId('filter-value-StatusNumber');
    expect(choice.textContent).toContain('Unmatched, Partly matched');
    fireEvent.click(await screen.findByText('Clear'));
    await waitFor(() => expect(lastFilters()).toEqual([]));
    expect((screen.getByTestId('grid-open-only').querySelector('input') as HTMLInputElement).checked).toBe(false);
  });

  it('double-click and right-click hand the row to the screen; a failed page is reported', async () => {
    mockApi({ 'GET /api/meta/views/VW_Report': ok(reportView), 'POST /api/grid': [ok({ dataList: rows, totalCount: 3 }), fail(400, 'From Date and To Date are required.')] });
    const onRowDoubleClick = vi.fn();
    const onRowContextMenu = vi.fn();
    const onLoadError = vi.fn();
    renderReport({ params: { fromDate: '2026-11-01' }, onRowDoubleClick, onRowContextMenu, onLoadError, reloadToken: 0 });
    const cell = (await screen.findByText('1,234.50')).closest('.rdg-cell')!;
    fireEvent.doubleClick(cell);
    expect(onRowDoubleClick).toHaveBeenCalledWith(rows[0]);
    fireEvent.contextMenu(cell);
    expect(onRowContextMenu.mock.calls[0]![0]).toEqual(rows[0]);
    fireEvent.click(screen.getByTestId('grid-refresh'));
    await waitFor(() => expect(onLoadError).toHaveBeenCalledWith('From Date and To Date are required.'));
  });
});
