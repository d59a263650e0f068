import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMS } from './bankOverviewParams';
import { bookingsLink, filterRows, nextSort, pageCount, pageOf, periodLabel, sortRows, type PivotColumn, type PivotRow } from './pivot';

const row = (Period: string, Card: string | null, Total: string | null): PivotRow => ({ Period, PeriodFrom: '2026-01-01', PeriodTo: '2026-01-31', Card, Total });
const rows = [row('2026-01', '1234.50', '1234.50'), row('2026-02', null, null), row('2026-03', '-3.00', '-3.00'), row('RowTotal', '1231.50', '1231.50')];
const columns: PivotColumn[] = [
  { key: 'Period', kind: 'period' },
  { key: 'Card', kind: 'actor', actor: 'Card' },
  { key: 'Total', kind: 'total' },
];

describe('pivot table', () => {
  it('sorts by a column and keeps RowTotal last in both directions', () => {
    expect(sortRows(rows, { key: 'Total', order: 'asc' }).map((r) => r.Period)).toEqual(['2026-02', '2026-03', '2026-01', 'RowTotal']);
    expect(sortRows(rows, { key: 'Total', order: 'desc' }).map((r) => r.Period)).toEqual(['2026-01', '2026-03', '2026-02', 'RowTotal']);
    expect(sortRows(rows, { key: 'Period', order: 'desc' }).map((r) => r.Period)).toEqual(['2026-03', '2026-02', '2026-01', 'RowTotal']);
  });

  it('toggles the direction on a second click of the same header', () => {
    const first = nextSort(null, 'Card');
    expect(first).toEqual({ key: 'Card', order: 'asc' });
    expect(nextSort(first, 'Card')).toEqual({ key: 'Card', order: 'desc' });
    expect(nextSort({ key: 'Card', order: 'desc' }, 'Total')).toEqual({ key: 'Total', order: 'asc' });
  });

  it('filters on the text the reader sees, in their language', () => {
    expect(filterRows(rows, columns, '1,234.50', 'en', 'Total').map((r) => r.Period)).toEqual(['2026-01', 'RowTotal']);
    expect(filterRows(rows, columns, '1.234,50', 'pt', 'Total').map((r) => r.Period)).toEqual(['2026-01', 'RowTotal']);
    expect(filterRows(rows, columns, '2026-03', 'en', 'Total').map((r) => r.Period)).toEqual(['2026-03', 'RowTotal']);
    expect(filterRows(rows, columns, 'nothing like it', 'en', 'Total')).toEqual([]);
  });

  // First user, second round, item 9: Reports showed yyyy-mm-dd whatever the user's format.
  it("shows days and months in the user's date format, other periods as named", () => {
    expect(periodLabel('2026-03-14', 'DD-MM-YYYY HH:mm:ss')).toBe('14-03-2026');
    expect(periodLabel('2026-03-14', 'MM/DD/YYYY HH:mm:ss')).toBe('03/14/2026');
    expect(periodLabel('2026-03-14', 'YYYY/MM/DD')).toBe('2026/03/14');
    expect(periodLabel('2026-03', 'DD-MM-YYYY HH:mm:ss')).toBe('03-2026');
    expect(periodLabel('2026-03', 'MM/DD/YYYY')).toBe('03/2026');
    expect(periodLabel('2026-03', 'DD/MM/YYYY')).toBe('03/2026');
    expect(periodLabel('2026-03', 'YYYY-MM-DD')).toBe('2026-03');
    expect(periodLabel('2026-03', 'YYYY/MM/DD')).toBe('2026/03');
    expect(periodLabel('2026-03-14', null)).toBe('14-03-2026');
    for (const other of ['2026', '2026-H1', '2026-Q3', '2026-W09']) expect(periodLabel(other, 'MM/DD/YYYY')).toBe(other);
  });

  it('filters periods on their label as shown', () => {
    const shown = (p: string) => periodLabel(p, 'DD-MM-YYYY');
    expect(filterRows(rows, columns, '03-2026', 'en', 'Total', shown).map((r) => r.Period)).toEqual(['2026-03', 'RowTotal']);
    expect(filterRows(rows, columns, '2026-03', 'en', 'Total', shown)).toEqual([]);
  });

  it('pages', () => {
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(101, 100)).toBe(2);
    expect(pageOf([1, 2, 3, 4, 5], 2, 2)).toEqual([3, 4]);
  });

  it('links a cell to the bookings it sums', () => {
    const link = bookingsLink(rows[0]!, columns[1]!, { ...DEFAULT_PARAMS, distribDriverFilter: 'No' });
    const q = new URLSearchParams(link.split('?')[1]);
    expect(link.startsWith('/dashboard/csvprocessed?')).toBe(true);
    expect(Object.fromEntries(q)).toEqual({
      tab: 'bankFiles',
      BookedDate: '2026-01-01..2026-01-31',
      InorOut: 'IN',
      DistRvnSettle: 'Yes',
      DistrDriver: 'No',
      AffectsBalance: 'Yes',
      Actor: 'Card',
    });
    const none = new URLSearchParams(bookingsLink(rows[0]!, { key: '(none)', kind: 'actor' }, DEFAULT_PARAMS).split('?')[1]);
    expect(none.get('Actor')).toBe('');
    expect(new URLSearchParams(bookingsLink(rows[0]!, columns[2]!, DEFAULT_PARAMS).split('?')[1]).has('Actor')).toBe(false);
  });
});
