import { describe, expect, it } from 'vitest';
import {
  MAX_COLUMN_WIDTH,
  MIN_COLUMN_WIDTH,
  defaultLayout,
  moveKey,
  reorderColumn,
  sanitizeLayout,
  setHidden,
  setPinned,
  setWidth,
  shownKeys,
  stepColumn,
  type ColumnLayout,
  type LayoutColumn,
} from './columnLayout';

const COLUMNS: LayoutColumn[] = [{ key: 'a' }, { key: 'b', pinned: true }, { key: 'c' }, { key: 'd', hidden: true }, { key: 'e' }];

describe('default layout', () => {
  it('is the default order with the pinned columns first, and the default hidden and pinned states', () => {
    expect(defaultLayout(COLUMNS)).toEqual({ order: ['b', 'a', 'c', 'd', 'e'], hidden: ['d'], pinned: ['b'], widths: {} });
  });
});

describe('sanitizing a stored layout', () => {
  it('gives the default layout for anything that is not one', () => {
    for (const stored of [null, undefined, 'x', 42, [], { order: 'a,b' }]) {
      expect(sanitizeLayout(stored, COLUMNS)).toEqual(defaultLayout(COLUMNS));
    }
  });

  it('drops unknown columns and repeats from every list and the widths', () => {
    const layout = sanitizeLayout(
      { order: ['e', 'gone', 'c', 'e', 'a', 'b', 'd', 7], hidden: ['c', 'gone', 'c'], pinned: ['b', 'gone'], widths: { c: 200, gone: 300, e: 'wide' } },
      COLUMNS,
    );
    expect(layout).toEqual({ order: ['b', 'e', 'c', 'a', 'd'], hidden: ['c'], pinned: ['b'], widths: { c: 200 } });
  });

  it('keeps widths whole pixels within the bounds', () => {
    const layout = sanitizeLayout({ order: ['a', 'b', 'c', 'd', 'e'], widths: { a: 10, b: 123.6, c: 1e9, d: Number.NaN } }, COLUMNS);
    expect(layout.widths).toEqual({ a: MIN_COLUMN_WIDTH, b: 124, c: MAX_COLUMN_WIDTH });
  });

  it('puts the pinned columns first whatever the stored order', () => {
    const layout = sanitizeLayout({ order: ['a', 'c', 'e', 'b', 'd'], hidden: [], pinned: ['e', 'c'] }, COLUMNS);
    expect(layout.order).toEqual(['c', 'e', 'a', 'b', 'd']);
    expect(layout.pinned).toEqual(['c', 'e']);
  });

  it('places columns added to the view since in their metadata position, with their default state', () => {
    // Saved when the view had a, c, e; b (pinned by default), d (hidden by default) and f came since.
    const now: LayoutColumn[] = [...COLUMNS, { key: 'f' }];
    const layout = sanitizeLayout({ order: ['e', 'c', 'a'], hidden: ['a'], pinned: [] }, now);
    // b after a (its predecessor in metadata), d after c, f after e; b pinned so first.
    expect(layout.order).toEqual(['b', 'e', 'f', 'c', 'd', 'a']);
    expect(layout.hidden).toEqual(['d', 'a']);
    expect(layout.pinned).toEqual(['b']);
  });

  it('places a new first column at the start and keeps new neighbours together', () => {
    const now: LayoutColumn[] = [{ key: 'x' }, { key: 'y' }, { key: 'a' }, { key: 'c' }];
    expect(sanitizeLayout({ order: ['c', 'a'] }, now).order).toEqual(['x', 'y', 'c', 'a']);
  });

  it('keeps the stored state of a known column over its default (a pin removed, a hidden column shown)', () => {
    const layout = sanitizeLayout({ order: ['a', 'b', 'c', 'd', 'e'], hidden: [], pinned: [] }, COLUMNS);
    expect(layout.pinned).toEqual([]);
    expect(layout.hidden).toEqual([]);
    expect(layout.order).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('appends new columns and takes the stored lists whole with newColumns: end (the task table)', () => {
    const layout = sanitizeLayout({ order: ['c', 'a'], hidden: ['a'] }, COLUMNS, { newColumns: 'end' });
    expect(layout.order).toEqual(['b', 'c', 'a', 'd', 'e']); // b stays pinned by default: no stored pins
    expect(layout.hidden).toEqual(['a']);
  });
});

describe('moves', () => {
  const base: ColumnLayout = { order: ['p', 'q', 'a', 'b', 'c'], hidden: ['b'], pinned: ['p', 'q'], widths: {} };

  it('drops a column on another: it takes the target place', () => {
    expect(moveKey(['a', 'b', 'c', 'd'], 'a', 'c')).toEqual(['b', 'c', 'a', 'd']);
    expect(moveKey(['a', 'b', 'c', 'd'], 'd', 'b')).toEqual(['a', 'd', 'b', 'c']);
    expect(moveKey(['a', 'b'], 'a', 'zz')).toEqual(['a', 'b']);
  });

  it('takes the pinned state of the column it is dropped on', () => {
    const pinnedNow = reorderColumn(base, 'c', 'q');
    expect(pinnedNow.order).toEqual(['p', 'c', 'q', 'a', 'b']);
    expect(pinnedNow.pinned).toEqual(['p', 'c', 'q']);
    const unpinned = reorderColumn(base, 'p', 'a');
    expect(unpinned.order).toEqual(['q', 'a', 'p', 'b', 'c']);
    expect(unpinned.pinned).toEqual(['q']);
    expect(reorderColumn(base, 'a', 'unknown')).toBe(base);
  });

  it('steps a column one place, at the ends not at all', () => {
    expect(stepColumn(base, 'c', -1).order).toEqual(['p', 'q', 'a', 'c', 'b']);
    expect(stepColumn(base, 'a', -1)).toMatchObject({ order: ['p', 'a', 'q', 'b', 'c'], pinned: ['p', 'a', 'q'] }); // into the pinned ones
    expect(stepColumn(base, 'p', -1)).toBe(base);
    expect(stepColumn(base, 'c', 1)).toBe(base);
  });

  it('hides and shows a column, never the last one shown', () => {
    expect(setHidden(base, 'a', true).hidden).toEqual(['a', 'b']);
    expect(setHidden(base, 'b', false).hidden).toEqual([]);
    const one: ColumnLayout = { ...base, hidden: ['p', 'q', 'a', 'b'] };
    expect(shownKeys(one)).toEqual(['c']);
    expect(setHidden(one, 'c', true)).toBe(one);
  });

  it('pins a column after the pinned ones, unpins it to just after them', () => {
    const pinned = setPinned(base, 'c', true);
    expect(pinned.order).toEqual(['p', 'q', 'c', 'a', 'b']);
    expect(pinned.pinned).toEqual(['p', 'q', 'c']);
    const unpinned = setPinned(base, 'p', false);
    expect(unpinned.order).toEqual(['q', 'p', 'a', 'b', 'c']);
    expect(unpinned.pinned).toEqual(['q']);
    expect(setPinned(base, 'p', true)).toBe(base);
  });

  it('keeps a width within the bounds', () => {
    expect(setWidth(base, 'a', 20).widths).toEqual({ a: MIN_COLUMN_WIDTH });
    expect(setWidth(base, 'a', 180.4).widths).toEqual({ a: 180 });
    expect(setWidth(base, 'nope', 180)).toBe(base);
  });
});
