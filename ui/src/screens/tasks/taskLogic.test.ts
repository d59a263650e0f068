import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import {
  adjustmentDefaults,
  autoTaskName,
  balance,
  clampPage,
  columnWidth,
  DATETIME_COLUMN_WIDTH,
  DEFAULT_COLUMN_WIDTH,
  defaultPrefs,
  filterText,
  moveColumn,
  nextSort,
  normalizePrefs,
  pagedQuery,
  parseIds,
  sortField,
  sumAmounts,
  totalPages,
  validAdjustmentAmount,
} from './taskLogic';

describe('sort-field mapping (spec 03 section 7.2)', () => {
  it.each([
    ['taskName', 'TaskName'],
    ['assignee', 'AssignedToId'],
    ['assignedToName', 'AssignedToId'],
    ['status', 'IsStatus'],
    ['statusLabel', 'IsStatus'],
    ['priority', 'Priority'],
    ['createdOn', 'CreatedOn'],
    ['updatedOn', 'UpdatedOn'],
    ['remarks', 'Remarks'],
    ['totalAmount', 'Id'],
    ['id', 'Id'],
    ['anything', 'Id'],
  ])('%s sorts by %s', (column, field) => expect(sortField(column)).toBe(field));

  it('toggles on repeated clicks and starts ascending on a new column', () => {
    const first = nextSort(null, 'taskName');
    expect(first).toEqual({ column: 'taskName', order: 'asc' });
    const second = nextSort(first, 'taskName');
    expect(second).toEqual({ column: 'taskName', order: 'desc' });
    expect(nextSort(second, 'taskName').order).toBe('asc');
    expect(nextSort(second, 'remarks')).toEqual({ column: 'remarks', order: 'asc' });
  });
});

describe('paged query', () => {
  it('sends page, pageSize, sort as "Field order" and filters as field:value pairs', () => {
    const q = pagedQuery({ page: 3, pageSize: 20, sort: { column: 'statusLabel', order: 'desc' }, filters: { taskName: 'review', remarks: '' } });
    expect(q.get('page')).toBe('3');
    expect(q.get('pageSize')).toBe('20');
    expect(q.get('sort')).toBe('IsStatus desc');
    expect(q.get('filters')).toBe('taskName:review');
  });

  it('filters the status label by its number and keeps ";" out of values', () => {
    expect(filterText({ statusLabel: '2', taskName: 'a;b', remarks: ' x ' })).toBe('isStatus:2;taskName:a b;remarks:x');
  });

  it('leaves paging out of the export and sort out when none is chosen', () => {
    const q = pagedQuery({ page: 2, pageSize: 50, sort: null, filters: {} }, false);
    expect(q.toString()).toBe('');
  });
});

describe('paging bounds (spec 03 section 5)', () => {
  it('has one page when there is nothing, and rounds up', () => {
    expect(totalPages(0, 20)).toBe(1);
    expect(totalPages(20, 20)).toBe(1);
    expect(totalPages(21, 20)).toBe(2);
  });
  it('keeps the page between 1 and the last', () => {
    expect(clampPage(0, 45, 20)).toBe(1);
    expect(clampPage(4, 45, 20)).toBe(3);
    expect(clampPage(2, 45, 20)).toBe(2);
  });
});

describe('column preferences', () => {
  it('defaults: all columns, the spec hidden ones hidden, page size 20', () => {
    const p = defaultPrefs();
    expect(p.hidden).toEqual(expect.arrayContaining(['id', 'assignedToId', 'isStatus']));
    expect(p.hidden).not.toContain('taskName');
    expect(p.pageSize).toBe(20);
  });
  it('drops unknown columns, appends new ones, bounds widths and page sizes', () => {
    const p = normalizePrefs({ order: ['remarks', 'nope', 'taskName', 'remarks'], widths: { taskName: 10, remarks: 300, nope: 5 }, hidden: ['balance', 'x'], filters: { taskName: 'a', nope: 'b' }, pageSize: 33 });
    expect(p.order.slice(0, 2)).toEqual(['remarks', 'taskName']);
    expect(p.order).toHaveLength(defaultPrefs().order.length);
    expect(p.widths).toEqual({ taskName: 50, remarks: 300 });
    expect(p.hidden).toEqual(['balance']);
    expect(p.filters).toEqual({ taskName: 'a' });
    expect(p.pageSize).toBe(20);
    expect(normalizePrefs('garbage')).toEqual(defaultPrefs());
  });
  it('gives a date-and-time column room for the time and its date filter unless the user set a width', () => {
    expect(columnWidth(defaultPrefs(), 'taskName')).toBe(DEFAULT_COLUMN_WIDTH);
    expect(columnWidth(defaultPrefs(), 'createdOn')).toBe(DATETIME_COLUMN_WIDTH);
    expect(columnWidth({ ...defaultPrefs(), widths: { createdOn: 90 } }, 'createdOn')).toBe(90);
  });
  it('moves a dropped column to the target place', () => {
    expect(moveColumn(['a', 'b', 'c', 'd'], 'a', 'c')).toEqual(['b', 'c', 'a', 'd']);
    expect(moveColumn(['a', 'b', 'c', 'd'], 'd', 'b')).toEqual(['a', 'd', 'b', 'c']);
    expect(moveColumn(['a', 'b'], 'a', 'zz')).toEqual(['a', 'b']);
  });
});

describe('editor', () => {
  it('reads comma-separated digit-only ids', () => {
    expect(parseIds(' 12, 7 ,3 ')).toEqual([12, 7, 3]);
    expect(parseIds('')).toEqual([]);
    expect(parseIds('1,2a')).toBeNull();
    expect(parseIds('1.5')).toBeNull();
    expect(parseIds('-4')).toBeNull();
    expect(parseIds('0')).toBeNull();
  });

  it('balances exactly: ticket total minus transaction total', () => {
    expect(balance(['100.00', '50.00'], ['90.00', '40.00'])).toBe('20.00');
    expect(balance(['0.10', '0.20'], ['0.30'])).toBe('0.00'); // no float drift
    expect(balance([], ['12.5'])).toBe('-12.50');
    expect(sumAmounts(['1.005', '2'])).toBe('3.01');
  });

  it('defaults the adjustment to the balance rounded to 2 decimals, today, and the only ticket', () => {
    const now = new Date(2026, 10, 24, 15, 30);
    const one = adjustmentDefaults([{ ticketId: 7, localFareCurrency: 'SEK' }], '20.005', now);
    expect(one).toEqual({ ticketId: 7, amount: '20.01', date: '2026-11-24', currency: 'SEK', remarks: '' });
    const two = adjustmentDefaults(
      [
        { ticketId: 7, localFareCurrency: 'SEK' },
        { ticketId: 8, localFareCurrency: 'SEK' },
      ],
      '-3.4',
      now,
    );
    expect(two.ticketId).toBeNull();
    // two tickets of one currency: the currency is known before a ticket is chosen
    expect(two.currency).toBe('SEK');
    expect(two.amount).toBe('-3.40');
    const mixed = adjustmentDefaults(
      [
        { ticketId: 7, localFareCurrency: 'SEK' },
        { ticketId: 8, localFareCurrency: 'EUR' },
      ],
      '1',
      now,
    );
    expect(mixed.ticketId).toBeNull();
    expect(mixed.currency).toBe('');
  });

  it('accepts only positive amounts of at most 2 decimals', () => {
    expect(validAdjustmentAmount('20')).toBe(true);
    expect(validAdjustmentAmount('20.5')).toBe(true);
    expect(validAdjustmentAmount('20.55')).toBe(true);
    expect(validAdjustmentAmount('20.555')).toBe(false);
    expect(validAdjustmentAmount('-1')).toBe(false);
    expect(validAdjustmentAmount('0')).toBe(false);
    expect(validAdjustmentAmount('abc')).toBe(false);
  });

  // First user, second round, item 14: the generated name was English in every language.
  it('names a task raised from the reconciliation details after its counts, in the language', async () => {
    expect(autoTaskName(i18n.t, 2, 3)).toBe('Reconciliation Review (2T / 3X)');
    await i18n.changeLanguage('sv');
    expect(autoTaskName(i18n.t, 2, 3)).toBe('Avstämningsgranskning (2 bilj. / 3 trans.)');
    await i18n.changeLanguage('en');
  });
});
