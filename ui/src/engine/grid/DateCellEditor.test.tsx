import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { SessionKeys } from '../../auth/session';
import { ToastProvider } from '../../shell/toast';
import { mockApi, ok } from '../../test/apiMock';
import { clearMetaCache } from '../api';
import { GridView } from '../GridView';
import { countryRows, countryView } from '../testFixtures';
import type { ViewMeta } from '../types';

// The country view with an editable date column.
const view: ViewMeta = {
  ...countryView,
  columns: [
    ...countryView.columns,
    { field: 'JoinedOn', type: 'date', label: 'Joined', editable: true, sortable: true, ops: ['equals', 'lt', 'gt'] },
  ],
};

function renderGrid() {
  return render(
    <ToastProvider>
      <MemoryRouter>
        <GridView viewName="VW_TblMasterCountry" />
      </MemoryRouter>
    </ToastProvider>,
  );
}

function setup() {
  return mockApi({
    'GET /api/meta/views/VW_TblMasterCountry': ok(view),
    'POST /api/grid': ok({ dataList: countryRows(1).map((r) => ({ ...r, JoinedOn: '2026-02-03' })), totalCount: 1, totalCapped: false }),
    'PUT /api/grid/row': ok({ ...countryRows(1)[0], JoinedOn: '2026-02-05', UpdatedOn: '2026-02-02T00:00:00Z' }),
  });
}

async function openEditor(): Promise<HTMLInputElement> {
  const cell = await screen.findByText('03/02/2026'); // the user's format
  fireEvent.doubleClick(cell.closest('[role="gridcell"]')!);
  const editor = await screen.findByTestId('editor-JoinedOn');
  return editor.querySelector('input')!;
}

beforeEach(() => {
  clearMetaCache();
  localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ username: 'anna', dateFormat: 'DD/MM/YYYY HH:mm:ss' }));
});
afterEach(() => localStorage.clear());

describe('the inline date editor', () => {
  it('is the app date picker in the user format; Enter saves the typed day', async () => {
    const api = setup();
    renderGrid();
    const input = await openEditor();
    expect(input.getAttribute('type')).not.toBe('date');
    expect(input.getAttribute('placeholder')).toBe('DD/MM/YYYY');
    await waitFor(() => expect(input.value).toBe('03/02/2026')); // the calendar writes its text in an effect
    fireEvent.input(input, { target: { value: '05/02/2026' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(api.callsTo('PUT', '/api/grid/row')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/grid/row')[0]!.body).toMatchObject({ Key: 1, Values: { JoinedOn: '2026-02-05' } });
    await screen.findByText('05/02/2026');
  });

  it('Escape leaves the day as it was, without a call', async () => {
    const api = setup();
    renderGrid();
    const input = await openEditor();
    fireEvent.input(input, { target: { value: '09/09/2026' } });
    fireEvent.keyDown(input, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('editor-JoinedOn')).toBeNull());
    expect(screen.getByText('03/02/2026')).toBeTruthy();
    expect(api.callsTo('PUT', '/api/grid/row')).toHaveLength(0);
  });

  it('a text that is no day is reported, not saved as empty', async () => {
    const api = setup();
    renderGrid();
    const input = await openEditor();
    fireEvent.input(input, { target: { value: '31/02/2026' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(screen.queryByTestId('editor-JoinedOn')).toBeNull());
    expect(document.querySelector('.p-toast-message-error')).toBeTruthy();
    expect(api.callsTo('PUT', '/api/grid/row')).toHaveLength(0);
  });
});
