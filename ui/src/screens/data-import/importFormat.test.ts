import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { extractionLogLink, extractionLogTab, formatBytes, rowErrorText, rowNoteText } from './importFormat';

describe('import helpers', () => {
  it('maps kinds to the extraction-log tabs', () => {
    expect(extractionLogTab('bank')).toBe('bankFiles');
    expect(extractionLogTab('settlement')).toBe('settlementFiles');
    expect(extractionLogTab('transaction')).toBe('transactionFiles');
    expect(extractionLogTab('ticket')).toBe('ticketFiles');
  });

  it('links to the extraction-log row of an import, or to its tab while the row is not known', () => {
    expect(extractionLogLink('ticket', 9)).toBe('/dashboard/extraction-logs?tab=ticketFiles&Id=9');
    expect(extractionLogLink('bank', null)).toBe('/dashboard/extraction-logs?tab=bankFiles');
  });

  it('formats sizes in the UI language', () => {
    expect(formatBytes(0, 'en')).toBe('0 B');
    expect(formatBytes(1536, 'en')).toBe('1.5 KB');
    expect(formatBytes(1536, 'sv')).toBe('1,5 KB');
    expect(formatBytes(100 * 1024 * 1024, 'en')).toBe('100 MB');
  });

  it('writes row errors with the parts the server gave, in the UI language', async () => {
    const t = i18n.t.bind(i18n);
    expect(rowErrorText({ line: 2, column: 1, field: 'TicketNumber', message: 'bad' }, t)).toBe('line 2, column 1 (TicketNumber): bad');
    expect(rowErrorText({ line: 7, message: 'short row' }, t)).toBe('line 7: short row');
    // A message starting with the field name does not repeat it.
    expect(rowErrorText({ line: 2, column: 1, field: 'TicketNumber', message: 'TicketNumber: "12" is too short' }, t)).toBe('line 2, column 1 (TicketNumber): "12" is too short');
    await i18n.changeLanguage('sv');
    expect(rowErrorText({ line: 2, column: 3, message: 'fel' }, i18n.t.bind(i18n))).toBe('rad 2, kolumn 3: fel');
    // A coded message reads in the UI language too.
    const coded = {
      line: 4,
      column: 2,
      field: 'ProcessingDate',
      message: 'ProcessingDate: "02/11/2026" is not a date in the format yyyy-MM-dd',
      code: 'import.row.date',
      params: { field: 'ProcessingDate', value: '"02/11/2026"', format: 'yyyy-MM-dd' },
    };
    expect(rowErrorText(coded, i18n.t.bind(i18n))).toBe('rad 4, kolumn 2 (ProcessingDate): "02/11/2026" är inte ett datum i formatet yyyy-MM-dd');
  });

  it('writes row notes with their line, in the UI language, else in the English the server sent', async () => {
    await i18n.changeLanguage('en');
    const t = i18n.t.bind(i18n);
    const gap = { line: 1, message: 'gap', code: 'import.note.statementGap', params: { statement: '7', number: 7, previous: '5', file: 'a.sta', previousNumber: 5 } };
    expect(rowNoteText(gap, t)).toBe('line 1: statement 7 is number 7, but the previous one, 5 (a.sta), is number 5: a statement is missing');
    expect(rowNoteText({ line: 3, message: 'something new', code: 'import.note.unknownToTheUi' }, t)).toBe('line 3: something new');
    // A note of no line (a statement as a whole) is its message alone.
    expect(rowNoteText({ line: 0, message: 'whole file', code: 'import.note.unknownToTheUi' }, t)).toBe('whole file');
    await i18n.changeLanguage('es');
    expect(rowNoteText({ line: 5, skipped: true, message: 'x', code: 'import.skip.presentNoImport' }, i18n.t.bind(i18n))).toBe('línea 5: ya existía (guardado sin importación)');
    await i18n.changeLanguage('en');
  });
});
