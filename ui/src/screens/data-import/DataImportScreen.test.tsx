import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { ImportFile } from '../../api/imports';
import { ToastProvider } from '../../shell/toast';
import { CONFIG_STORAGE_KEY, getAppConfig } from '../../config/appConfig';
import { TAB_STORAGE_PREFIX } from '../../engine/MetadataScreen';
import { renderAt, seedSession } from '../../test/helpers';
import i18n from '../../i18n';
import DataImportScreen from './DataImportScreen';
import { EXTRACTION_LOGS_TAB_KEY } from './importFormat';

vi.setConfig({ testTimeout: 20_000 });

// The api client, mocked: quiet GETs answer from `answers`, uploads from `mocks.apiUpload`.
const mocks = vi.hoisted(() => ({ getQuiet: vi.fn(), apiUpload: vi.fn() }));
vi.mock('../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../api/client')>();
  return {
    ...actual,
    api: { ...actual.api, getQuiet: (path: string) => mocks.getQuiet(path) },
    apiUpload: (...args: unknown[]) => mocks.apiUpload(...args),
  };
});

const LAYOUTS = [
  { name: 'default-bank-csv', kind: 'bank', format: 'csv', description: 'The default bank CSV layout' },
  { name: 'camt053', kind: 'bank', format: 'camt053', description: 'ISO 20022 statements' },
  { name: 'nuvei-transactions', kind: 'transaction', format: 'csv', description: 'Nuvei export' },
];

const RECENT: ImportFile[] = [
  { importId: 3, kind: 'bank', fileName: 'march.csv', status: 'succeeded', rowsRead: 12, rowsLoaded: 12, rowsOverlap: 0, createdOn: '2026-03-04T09:05:07Z', createdBy: 'admin' },
  { importId: 2, kind: 'ticket', fileName: 'tickets.csv', status: 'failed', rowsRead: 4, rowsLoaded: 0, error: 'Bad rows', createdOn: '2026-03-03T09:05:07Z', createdBy: 'anna' },
  { importId: 1, kind: 'settlement', fileName: 'payouts.csv', status: 'running', rowsRead: 100, rowsLoaded: 50, createdOn: '2026-03-02T09:05:07Z', createdBy: 'anna' },
];

let answers: Record<string, unknown[]>;

function answer(path: string, ...values: unknown[]) {
  answers[path] = values;
}

beforeEach(() => {
  answers = {};
  answer('imports/layouts', LAYOUTS);
  answer('imports', []);
  mocks.getQuiet.mockReset().mockImplementation(async (path: string) => {
    const queue = answers[path];
    if (!queue) throw new ApiError(`no answer for ${path}`, 404);
    const value = queue.length > 1 ? queue.shift() : queue[0];
    if (value instanceof Error) throw value;
    return value;
  });
  mocks.apiUpload.mockReset();
  localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify({ ...getAppConfig(), uploadMaxBytes: 1024 }));
  sessionStorage.clear();
});

afterEach(() => vi.unstubAllGlobals());

function renderScreen() {
  return render(
    <ToastProvider>
      <MemoryRouter initialEntries={['/dashboard/financialdocument']}>
        <DataImportScreen pollMs={15} />
      </MemoryRouter>
    </ToastProvider>,
  );
}

function csv(name: string, text = 'BankAccount,BookedDate\n1,2026-03-04\n') {
  return new File([text], name, { type: 'text/csv' });
}

function chooseKind(kind: string) {
  fireEvent.click(screen.getByTestId(`import-kind-${kind}`));
}

function chooseFiles(...files: File[]) {
  fireEvent.change(screen.getByTestId('import-file-input'), { target: { files } });
}

function row(name: string): HTMLElement {
  const found = screen.getAllByTestId('import-row').find((el) => el.getAttribute('data-file') === name);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

function queued(file: File, id = 5): ImportFile {
  return { importId: id, kind: 'bank', fileName: file.name, status: 'queued', rowsRead: 0, rowsLoaded: 0, rowsOverlap: 0, error: null, rowErrors: null, extractionLogId: null };
}

describe('data import screen', () => {
  it('is the financialdocument route, behind screen id 2', async () => {
    seedSession();
    renderAt('/dashboard/financialdocument');
    expect(await screen.findByTestId('screen-data-import')).toBeTruthy();
    expect(screen.getByTestId('screen-title').textContent).toBe('Data Import');
    expect(screen.queryByTestId('screen-placeholder')).toBeNull();
  });

  it('needs a kind before files can be chosen; the layouts follow the kind', async () => {
    renderScreen();
    expect((screen.getByTestId('import-file-input') as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByText('Choose the kind of file first')).toBeTruthy();
    await waitFor(() => expect(mocks.getQuiet).toHaveBeenCalledWith('imports/layouts'));
    chooseKind('bank');
    expect((screen.getByTestId('import-file-input') as HTMLInputElement).disabled).toBe(false);
    expect(screen.getByTestId('import-layout').textContent).toContain('Detect from the file');
    expect(screen.getByText('Bank statements')).toBeTruthy();
    expect(screen.getByText('Card transactions')).toBeTruthy();
    expect(screen.getByText('Settlements')).toBeTruthy();
    expect(screen.getByText('Ticket sales')).toBeTruthy();
    // The size limit of the app configuration is shown.
    expect(screen.getByText(/up to 1 KB per file/)).toBeTruthy();
  });

  it('sends one multipart POST per file with the kind, the file and the chosen layout', async () => {
    const pending = new Promise<ImportFile>(() => {});
    mocks.apiUpload.mockReturnValue(pending);
    renderScreen();
    chooseKind('bank');
    const file = csv('march.csv');
    chooseFiles(file);
    await waitFor(() => expect(mocks.apiUpload).toHaveBeenCalledTimes(1));
    const [path, form] = mocks.apiUpload.mock.calls[0] as [string, FormData];
    expect(path).toBe('imports');
    expect(form).toBeInstanceOf(FormData);
    expect(form.get('kind')).toBe('bank');
    expect((form.get('file') as File).name).toBe('march.csv');
    expect(form.get('layout')).toBeNull(); // detected by the server
    expect(row('march.csv').getAttribute('data-status')).toBe('uploading');
    expect(within(row('march.csv')).getByText(/Uploading… 0%/)).toBeTruthy();

    // With a layout chosen, the layout is sent as well.
    fireEvent.click(screen.getByTestId('import-layout'));
    fireEvent.click(await screen.findByText('camt053 (camt053)'));
    expect(await screen.findByText('ISO 20022 statements')).toBeTruthy();
    chooseFiles(csv('april.xml'));
    await waitFor(() => expect(mocks.apiUpload).toHaveBeenCalledTimes(2));
    const second = mocks.apiUpload.mock.calls[1]![1] as FormData;
    expect(second.get('layout')).toBe('camt053');
    expect(second.get('kind')).toBe('bank');
  });

  it('uploads at most two files at a time', async () => {
    const resolvers: Array<(value: ImportFile) => void> = [];
    mocks.apiUpload.mockImplementation((_path: string, form: FormData) => new Promise<ImportFile>((resolve) => resolvers.push(() => resolve({ ...queued(form.get('file') as File), status: 'succeeded' }))));
    renderScreen();
    chooseKind('transaction');
    chooseFiles(csv('a.csv'), csv('b.csv'), csv('c.csv'));
    await waitFor(() => expect(mocks.apiUpload).toHaveBeenCalledTimes(2));
    expect(row('c.csv').getAttribute('data-status')).toBe('waiting');
    await act(async () => resolvers[0]!({} as ImportFile));
    await waitFor(() => expect(mocks.apiUpload).toHaveBeenCalledTimes(3));
    expect((mocks.apiUpload.mock.calls[2]![1] as FormData).get('kind')).toBe('transaction');
  });

  it('polls the import: rows read and loaded while it runs, then the outcome, a toast and a fresh recent list', async () => {
    const file = csv('march.csv');
    mocks.apiUpload.mockResolvedValue(queued(file));
    answer(
      'imports/5',
      { ...queued(file), status: 'running', rowsRead: 1200, rowsLoaded: 1100 },
      { ...queued(file), status: 'succeeded', rowsRead: 12, rowsLoaded: 9, rowsOverlap: 3, extractionLogId: 44 },
    );
    renderScreen();
    await waitFor(() => expect(mocks.getQuiet).toHaveBeenCalledWith('imports'));
    const recentCalls = () => mocks.getQuiet.mock.calls.filter(([p]) => p === 'imports').length;
    expect(recentCalls()).toBe(1);
    chooseKind('bank');
    chooseFiles(file);
    expect(await within(row('march.csv')).findByText('1,200 rows read, 1,100 loaded…')).toBeTruthy();
    await waitFor(() => expect(row('march.csv').getAttribute('data-status')).toBe('succeeded'));
    expect(within(row('march.csv')).getByTestId('import-outcome').textContent).toBe('9 rows loaded · 3 already present');
    expect(within(row('march.csv')).getByTestId('import-status').textContent).toBe('Succeeded');
    expect(await screen.findByText('march.csv: 9 rows loaded')).toBeTruthy();
    await waitFor(() => expect(recentCalls()).toBe(2));

    // The extraction-log link opens the logs screen on the bank files tab, on this import's row.
    const link = within(row('march.csv')).getByTestId('import-log-link');
    expect(link.getAttribute('href')).toBe('/dashboard/extraction-logs?tab=bankFiles&Id=44');
    fireEvent.click(link);
    expect(EXTRACTION_LOGS_TAB_KEY).toBe(`${TAB_STORAGE_PREFIX}extraction-logs`);
    expect(sessionStorage.getItem(EXTRACTION_LOGS_TAB_KEY)).toBe('bankFiles');
  });

  it('shows the server message of a 409 (the same file again)', async () => {
    const message = 'march.csv was already imported on 2026-03-04 09:05 as import 3';
    mocks.apiUpload.mockRejectedValue(new ApiError(message, 409));
    renderScreen();
    chooseKind('bank');
    chooseFiles(csv('march.csv'));
    await waitFor(() => expect(row('march.csv').getAttribute('data-status')).toBe('duplicate'));
    expect(within(row('march.csv')).getByTestId('import-outcome').textContent).toBe(message);
    expect(within(row('march.csv')).getByTestId('import-status').textContent).toBe('Already imported');
    expect(screen.getAllByText(message).length).toBeGreaterThanOrEqual(2); // the row and the toast
  });

  it('refuses a file over the size limit (and an empty one) without sending it', async () => {
    renderScreen();
    chooseKind('settlement');
    chooseFiles(new File(['x'.repeat(2048)], 'huge.csv'), new File([], 'empty.csv'));
    await waitFor(() => expect(row('huge.csv').getAttribute('data-status')).toBe('refused'));
    expect(within(row('huge.csv')).getByTestId('import-outcome').textContent).toBe('huge.csv is 2 KB; files up to 1 KB can be imported');
    expect(within(row('empty.csv')).getByTestId('import-outcome').textContent).toBe('empty.csv is empty');
    expect(await screen.findAllByText(/huge\.csv is 2 KB/)).toHaveLength(2); // row and toast
    expect(mocks.apiUpload).not.toHaveBeenCalled();
  });

  it('turns a 413 from the server into the size message', async () => {
    mocks.apiUpload.mockRejectedValue(new ApiError('Request Entity Too Large', 413));
    renderScreen();
    chooseKind('bank');
    chooseFiles(csv('big.csv'));
    await waitFor(() => expect(row('big.csv').getAttribute('data-status')).toBe('refused'));
    expect(within(row('big.csv')).getByTestId('import-outcome').textContent).toMatch(/^big\.csv is .* files up to 1 KB can be imported$/);
  });

  it('says why a file was refused in the reader\'s language, with the line and column', async () => {
    const file = csv('mt.sta');
    mocks.apiUpload.mockResolvedValue(queued(file));
    answer('imports/5', {
      ...queued(file),
      status: 'failed',
      error: 'mt.sta: line 2, column 1: the line is not an MT940 field (a field starts like :20:)',
      errorCode: 'import.file.notMt940Field',
      errorParams: { file: 'mt.sta', line: 2, column: 1 },
    });
    await i18n.changeLanguage('sv');
    try {
      renderScreen();
      chooseKind('bank');
      chooseFiles(file);
      await waitFor(() => expect(row('mt.sta').getAttribute('data-status')).toBe('failed'));
      expect(within(row('mt.sta')).getByTestId('import-outcome').textContent).toBe('mt.sta: rad 2, kolumn 1: raden är inget MT940-fält (ett fält börjar som :20:)');
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('lists the row errors of a failed import, the first 100 of them', async () => {
    const file = csv('tickets.csv');
    const rowErrors = [
      { line: 2, column: 1, field: 'TicketNumber', message: 'must have 13 digits' },
      { line: 3, column: null, field: null, message: 'too few columns' },
      ...Array.from({ length: 148 }, (_, i) => ({ line: i + 4, column: 7, field: 'SaleAmount', message: 'not a number' })),
    ];
    mocks.apiUpload.mockResolvedValue({ ...queued(file), kind: 'ticket' });
    answer('imports/5', { ...queued(file), kind: 'ticket', status: 'failed', rowsRead: 150, rowsLoaded: 0, error: 'tickets.csv: 150 rows have errors', rowErrors, extractionLogId: 9 });
    renderScreen();
    chooseKind('ticket');
    chooseFiles(file);
    await waitFor(() => expect(row('tickets.csv').getAttribute('data-status')).toBe('failed'));
    const r = within(row('tickets.csv'));
    expect(r.getByTestId('import-outcome').textContent).toBe('tickets.csv: 150 rows have errors');
    expect(r.queryByTestId('import-row-errors')).toBeNull();
    fireEvent.click(r.getByText('Show 150 row errors'));
    const items = within(r.getByTestId('import-row-errors')).getAllByRole('listitem');
    expect(items).toHaveLength(101);
    expect(items[0]!.textContent).toBe('line 2, column 1 (TicketNumber): must have 13 digits');
    expect(items[1]!.textContent).toBe('line 3: too few columns');
    expect(items[100]!.textContent).toBe('…and 50 more');
    expect(await screen.findByText('Import failed')).toBeTruthy();
    // The link opens the extraction-logs screen on the Ticket Files tab, on this import's row.
    expect(r.getByTestId('import-log-link').getAttribute('href')).toBe('/dashboard/extraction-logs?tab=ticketFiles&Id=9');
    fireEvent.click(r.getByTestId('import-log-link'));
    expect(sessionStorage.getItem(EXTRACTION_LOGS_TAB_KEY)).toBe('ticketFiles');
  });

  it('lists the notes of a succeeded import in the reader\'s language, tagging the rows not loaded', async () => {
    const file = csv('b.sta');
    const rowNotes = [
      { line: 4, skipped: true, message: 'already loaded by import 3 (a.sta)', code: 'import.skip.present', params: { importId: 3, file: 'a.sta' } },
      { line: 9, message: '260230 is not a day of its month; read as the month\'s last day, 2026-02-28', code: 'import.note.lastDayOfMonth', params: { value: '260230', date: '2026-02-28' } },
    ];
    mocks.apiUpload.mockResolvedValue(queued(file));
    answer('imports/5', { ...queued(file), status: 'succeeded', rowsRead: 12, rowsLoaded: 11, rowsOverlap: 1, rowNotes, noteCount: 2 });
    await act(async () => {
      await i18n.changeLanguage('sv');
    });
    try {
      renderScreen();
      chooseKind('bank');
      chooseFiles(file);
      await waitFor(() => expect(row('b.sta').getAttribute('data-status')).toBe('succeeded'));
      const r = within(row('b.sta'));
      // The outcome stays the count of rows loaded and already present.
      expect(r.getByTestId('import-outcome').textContent).toBe('11 rader inlästa · 1 fanns redan');
      expect(r.queryByTestId('import-row-notes')).toBeNull();
      const toggle = r.getByTestId('import-row-notes-toggle');
      expect(toggle.textContent?.trim()).toBe('Visa 2 anmärkningar');
      fireEvent.click(toggle);
      expect(toggle.textContent?.trim()).toBe('Dölj anmärkningar');
      const items = within(r.getByTestId('import-row-notes')).getAllByRole('listitem');
      expect(items.map((item) => item.textContent)).toEqual([
        'rad 4: redan inläst av import 3 (a.sta) ej inläst',
        'rad 9: 260230 är ingen dag i sin månad; läst som månadens sista dag, 2026-02-28',
      ]);
      expect(within(items[0]!).getByText('ej inläst').className).toContain('row-notes__tag');
      expect(within(items[1]!).queryByText('ej inläst')).toBeNull();
      expect(r.queryByTestId('import-row-errors-toggle')).toBeNull();
    } finally {
      await act(async () => {
        await i18n.changeLanguage('en');
      });
    }
  });

  it('counts the notes the list leaves out', async () => {
    const file = csv('big.sta');
    const rowNotes = Array.from({ length: 1000 }, (_, i) => ({ line: i + 2, skipped: true, message: 'the same record as line 1 (equal identifying fields): loaded once', code: 'import.skip.repeated', params: { first: 1 } }));
    mocks.apiUpload.mockResolvedValue(queued(file));
    answer('imports/5', { ...queued(file), status: 'succeeded', rowsRead: 1500, rowsLoaded: 1, rowNotes, noteCount: 1499 });
    renderScreen();
    chooseKind('bank');
    chooseFiles(file);
    await waitFor(() => expect(row('big.sta').getAttribute('data-status')).toBe('succeeded'));
    const r = within(row('big.sta'));
    fireEvent.click(r.getByText('Show 1499 notes'));
    const items = within(r.getByTestId('import-row-notes')).getAllByRole('listitem');
    expect(items).toHaveLength(101);
    expect(items[0]!.textContent).toBe('line 2: the same record as line 1 (equal identifying fields): loaded once not loaded');
    expect(items[100]!.textContent).toBe('…and 1399 more');
  });

  it('lists recent imports with time, kind, file, coloured status, rows and who', async () => {
    seedSession();
    answer('imports', RECENT);
    renderScreen();
    const rows = await screen.findAllByTestId('recent-row');
    expect(rows).toHaveLength(3);
    const cells = within(rows[0]!).getAllByRole('cell').map((c) => c.textContent);
    const local = new Date('2026-03-04T09:05:07Z');
    const pad = (n: number) => String(n).padStart(2, '0');
    expect(cells[0]).toBe(`${pad(local.getDate())}-${pad(local.getMonth() + 1)}-${local.getFullYear()} ${pad(local.getHours())}:05:07`);
    expect(cells.slice(1, 7)).toEqual(['Bank statements', 'march.csv', 'Succeeded', '12', '12', 'admin']);
    expect(rows[0]!.querySelector('.p-tag-success')).toBeTruthy();
    expect(rows[1]!.querySelector('.p-tag-danger')?.textContent).toBe('Failed');
    expect(rows[2]!.querySelector('.p-tag-info')?.textContent).toBe('Running');
    // A running import is followed: the list is asked again.
    await waitFor(() => expect(mocks.getQuiet.mock.calls.filter(([p]) => p === 'imports').length).toBeGreaterThan(1));
  });
});
