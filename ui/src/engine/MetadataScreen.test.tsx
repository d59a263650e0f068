import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ToastProvider } from '../shell/toast';
import { mockApi, ok } from '../test/apiMock';
import { clearMetaCache } from './api';
import { MetadataScreen, TAB_STORAGE_PREFIX } from './MetadataScreen';
import { countryView } from './testFixtures';
import type { ScreenMeta } from './types';

const screenMeta: ScreenMeta = {
  route: 'extraction-logs',
  screen: 12,
  title: 'screens.extractionLogs.title',
  tabs: [
    { id: 'bankFiles', title: 'tabs.bankFiles', view: 'VW_A' },
    { id: 'settlementFiles', title: 'tabs.settlementFiles', view: 'VW_B' },
    { id: 'transactionFiles', title: 'tabs.transactionFiles', view: 'VW_C' },
  ],
};

function renderScreen() {
  return render(
    <ToastProvider>
      <MemoryRouter>
        <MetadataScreen route="extraction-logs" />
      </MemoryRouter>
    </ToastProvider>,
  );
}

beforeEach(() => {
  clearMetaCache();
  sessionStorage.clear();
  mockApi({
    'GET /api/meta/screens/extraction-logs': ok(screenMeta),
    'GET /api/meta/views/VW_A': ok({ ...countryView, name: 'VW_A' }),
    'GET /api/meta/views/VW_B': ok({ ...countryView, name: 'VW_B' }),
    'GET /api/meta/views/VW_C': ok({ ...countryView, name: 'VW_C' }),
    'POST /api/grid': ok({ dataList: [], totalCount: 0 }),
  });
});

describe('MetadataScreen', () => {
  it('renders the title and one tab per grid, the first one open', async () => {
    renderScreen();
    expect((await screen.findByTestId('screen-title')).textContent).toBe('Extraction Logs');
    await screen.findByTestId('grid-VW_A');
    const tabs = [...document.querySelectorAll('.p-tabview-nav .p-tabview-title')].map((e) => e.textContent);
    expect(tabs).toEqual(['Bank Files', 'Settlement Files', 'Transaction Files']);
  });

  it('remembers the open tab for the session', async () => {
    const first = renderScreen();
    await screen.findByTestId('grid-VW_A');
    fireEvent.click(screen.getByTestId('tab-settlementFiles'));
    await screen.findByTestId('grid-VW_B');
    expect(sessionStorage.getItem(`${TAB_STORAGE_PREFIX}extraction-logs`)).toBe('settlementFiles');
    first.unmount();

    renderScreen();
    await screen.findByTestId('grid-VW_B');
    await waitFor(() => expect(screen.queryByTestId('grid-VW_A')).toBeNull());
  });

  it('opens the tab a link names and shows the rows it names, until the chip is clicked', async () => {
    const api = mockApi({
      'GET /api/meta/screens/extraction-logs': ok(screenMeta),
      'GET /api/meta/views/VW_A': ok({ ...countryView, name: 'VW_A' }),
      'GET /api/meta/views/VW_B': ok({ ...countryView, name: 'VW_B' }),
      'GET /api/meta/views/VW_C': ok({ ...countryView, name: 'VW_C' }),
      'POST /api/grid': ok({ dataList: [], totalCount: 0 }),
    });
    render(
      <ToastProvider>
        <MemoryRouter initialEntries={['/dashboard/extraction-logs?tab=transactionFiles&CountryID=42&Unknown=x']}>
          <MetadataScreen route="extraction-logs" />
        </MemoryRouter>
      </ToastProvider>,
    );
    await screen.findByTestId('grid-VW_C');
    const chip = await screen.findByTestId('grid-linked');
    expect(chip.textContent).toContain('= 42');
    await waitFor(() => expect(api.callsTo('POST', '/api/grid').length).toBeGreaterThan(0));
    // A field the view does not have is ignored; an int field is sent as a number.
    expect((api.callsTo('POST', '/api/grid').at(-1)!.body as { ViewName: string; Filters: unknown[] })).toMatchObject({
      ViewName: 'VW_C',
      Filters: [{ field: 'CountryID', op: 'equals', value: 42 }],
    });
    expect(sessionStorage.getItem(`${TAB_STORAGE_PREFIX}extraction-logs`)).toBe('transactionFiles');
    fireEvent.click(chip);
    await waitFor(() => expect(screen.queryByTestId('grid-linked')).toBeNull());
    await waitFor(() => expect((api.callsTo('POST', '/api/grid').at(-1)!.body as { Filters: unknown[] }).Filters).toEqual([]));
  });
});
