import { describe, expect, it } from 'vitest';
import { countryView, reportViewFixture } from '../testFixtures';
import type { ColumnMeta, ViewMeta } from '../types';
import {
  MAX_FILTER_SETS,
  MAX_SET_NAME,
  activeFilterSet,
  deleteFilterSet,
  layoutColumns,
  prefsKey,
  sanitizeGridPrefs,
  saveFilterSet,
  storedPrefs,
  type FilterSet,
} from './gridPrefs';

const KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/; // the server's preference key pattern

const pinnedView: ViewMeta = {
  ...countryView,
  columns: countryView.columns.map((c) => (c.field === 'CountryCode' ? { ...c, pinned: true } : c)),
};

const report = reportViewFixture('VW_Report', [], [
  { field: 'Day', type: 'date', label: 'Day', sortable: true, ops: ['equals', 'between'] },
  { field: 'StatusNumber', type: 'int', label: 'Status', sortable: true, ops: ['equals'] },
  { field: 'Amount', type: 'decimal', label: 'Amount', sortable: false, ops: ['gt'] },
  { field: 'RowKey', type: 'text', label: 'Key', hidden: true, sortable: true, ops: ['equals'] },
] as ColumnMeta[]);

describe('preference key', () => {
  it('lower-cases the view name into the key the server takes', () => {
    expect(prefsKey('VW_TblMasterCountry')).toBe('grid.vw_tblmastercountry');
    expect(prefsKey('Odd Name/ÅÄ')).toBe('grid.odd-name---');
    const long = prefsKey('V'.repeat(100));
    expect(long).toHaveLength(64);
    for (const key of [prefsKey('VW_TblMasterCountry'), prefsKey('Odd Name/ÅÄ'), long]) expect(key).toMatch(KEY);
  });
});

describe('layout columns', () => {
  it('are the visible columns in metadata order with their default pins', () => {
    expect(layoutColumns(pinnedView)).toEqual([
      { key: 'CountryCode', pinned: true },
      { key: 'CountryName', pinned: false },
      { key: 'Amount', pinned: false },
    ]);
  });

  it('leave out the rowStatus field: it is the frozen Status column, always first', () => {
    expect(layoutColumns(report).map((c) => c.key)).toEqual(['Day', 'Amount']);
  });
});

describe('sanitizing stored preferences', () => {
  it('reads nothing stored ({} or garbage) as the default layout and no filter sets', () => {
    for (const stored of [{}, null, 'x', [], { layout: 'x', filterSets: 'y' }, { layout: { hidden: ['Amount'] } }]) {
      expect(sanitizeGridPrefs(stored, countryView)).toEqual({ layout: null, filterSets: [] });
    }
  });

  it('sanitizes the layout against the view: unknown and hidden columns dropped, new ones in place, default pins', () => {
    const prefs = sanitizeGridPrefs({ layout: { order: ['Amount', 'Gone', 'CountryName', 'CountryID'], hidden: ['CountryName'], pinned: [] } }, pinnedView);
    expect(prefs.layout).toEqual({ order: ['CountryCode', 'Amount', 'CountryName'], hidden: ['CountryName'], pinned: ['CountryCode'], widths: {} });
  });

  it('keeps only filter sets it can apply', () => {
    const sets = sanitizeGridPrefs(
      {
        filterSets: [
          { name: '  Nordics ', filters: { CountryName: { op: 'contains', value: 'land' }, Gone: { op: 'equals', value: 'x' }, Amount: { op: 'nope', value: '1' } }, sort: { field: 'CountryCode', order: 'desc' } },
          { name: 'Nordics', filters: {}, sort: null }, // the same name again: the first stays
          { name: '', filters: {} },
          { name: 'Bad sort', filters: { Amount: { op: 'between', value: '1', to: '2', extra: true } }, sort: { field: 'UpdatedOn', order: 'asc' } },
          { name: 'Hidden filter', filters: { UpdatedOn: { op: 'equals', value: 'x' } }, sort: { field: 'CountryName', order: 'sideways' } },
          'junk',
        ],
      },
      countryView,
    );
    expect(sets.filterSets).toEqual([
      { name: 'Nordics', filters: { CountryName: { op: 'contains', value: 'land' } }, sort: { field: 'CountryCode', order: 'desc' } },
      { name: 'Bad sort', filters: { Amount: { op: 'between', value: '1', to: '2' } }, sort: null },
      { name: 'Hidden filter', filters: {}, sort: null },
    ]);
  });

  it("lets a report's set filter and sort by its status (the Status column's choice of statuses)", () => {
    const [set] = sanitizeGridPrefs({ filterSets: [{ name: 'Open', filters: { StatusNumber: { op: 'in', value: '1,2', values: ['1', '2', 3] } }, sort: { field: 'StatusNumber', order: 'asc' } }] }, report).filterSets;
    expect(set).toEqual({ name: 'Open', filters: { StatusNumber: { op: 'in', value: '1,2', values: ['1', '2'] } }, sort: { field: 'StatusNumber', order: 'asc' } });
  });

  it('keeps at most the maximum number of sets, names cut to the maximum length', () => {
    const many = Array.from({ length: MAX_FILTER_SETS + 5 }, (_, i) => ({ name: `Set ${i} ${'x'.repeat(MAX_SET_NAME)}`, filters: {} }));
    const sets = sanitizeGridPrefs({ filterSets: many }, countryView).filterSets;
    expect(sets).toHaveLength(MAX_FILTER_SETS);
    expect(sets[0]!.name).toHaveLength(MAX_SET_NAME);
  });

  it('writes no layout while the user has the default one', () => {
    expect(storedPrefs({ layout: null, filterSets: [] })).toEqual({ filterSets: [] });
    const layout = { order: ['CountryName'], hidden: [], pinned: [], widths: {} };
    expect(storedPrefs({ layout, filterSets: [] })).toEqual({ layout, filterSets: [] });
  });
});

describe('filter sets', () => {
  const nordics: FilterSet = { name: 'Nordics', filters: { CountryName: { op: 'contains', value: 'land' } }, sort: null };

  it('saves the current filters (those with a value) and sort under a new name, last', () => {
    const result = saveFilterSet([nordics], '  Big ', { Amount: { op: 'gt', value: '100' }, CountryName: { op: 'contains', value: '  ' }, CountryCode: { op: 'isEmpty', value: '' } }, { field: 'Amount', order: 'desc' });
    expect(result).toEqual({
      replaced: false,
      sets: [nordics, { name: 'Big', filters: { Amount: { op: 'gt', value: '100' }, CountryCode: { op: 'isEmpty', value: '' } }, sort: { field: 'Amount', order: 'desc' } }],
    });
  });

  it('replaces a set of the same name in its place', () => {
    const other: FilterSet = { name: 'Other', filters: {}, sort: null };
    const result = saveFilterSet([nordics, other], 'Nordics', {}, { field: 'CountryCode', order: 'asc' });
    expect(result).toEqual({ replaced: true, sets: [{ name: 'Nordics', filters: {}, sort: { field: 'CountryCode', order: 'asc' } }, other] });
  });

  it('refuses an empty name and one set more than the maximum', () => {
    expect(saveFilterSet([], '   ', {}, null)).toEqual({ error: 'emptyName' });
    const full = Array.from({ length: MAX_FILTER_SETS }, (_, i): FilterSet => ({ name: `S${i}`, filters: {}, sort: null }));
    expect(saveFilterSet(full, 'One more', {}, null)).toEqual({ error: 'tooMany' });
    expect(saveFilterSet(full, 'S3', {}, null)).toMatchObject({ replaced: true });
  });

  it('deletes a set by name', () => {
    expect(deleteFilterSet([nordics, { name: 'B', filters: {}, sort: null }], 'Nordics').map((s) => s.name)).toEqual(['B']);
  });

  it('knows which set the grid shows: the same filters (in any order, valueless ones ignored) and sort', () => {
    const sorted: FilterSet = { ...nordics, name: 'Sorted', sort: { field: 'CountryCode', order: 'asc' } };
    const sets = [nordics, sorted];
    expect(activeFilterSet(sets, { CountryName: { op: 'contains', value: 'land' }, Amount: { op: 'gt', value: '' } }, null)).toBe(nordics);
    expect(activeFilterSet(sets, { CountryName: { op: 'contains', value: 'land' } }, { field: 'CountryCode', order: 'asc' })).toBe(sorted);
    expect(activeFilterSet(sets, { CountryName: { op: 'contains', value: 'lan' } }, null)).toBeUndefined();
  });
});
