import { describe, expect, it } from 'vitest';
import { allSelected, sameIds, someSelected, toggleAll, toggleOne } from './selection';

const ALL = [3, 1, 2];

describe('select-all', () => {
  it('ticking select-all selects every item in list order, unticking clears', () => {
    expect(toggleAll(ALL, true)).toEqual([3, 1, 2]);
    expect(toggleAll(ALL, false)).toEqual([]);
  });

  it('follows the individual selections', () => {
    let selected: number[] = [];
    expect(allSelected(ALL, selected)).toBe(false);
    selected = toggleOne(ALL, selected, 1, true);
    selected = toggleOne(ALL, selected, 3, true);
    expect(selected).toEqual([3, 1]);
    expect(allSelected(ALL, selected)).toBe(false);
    expect(someSelected(ALL, selected)).toBe(true);
    selected = toggleOne(ALL, selected, 2, true);
    expect(allSelected(ALL, selected)).toBe(true);
    selected = toggleOne(ALL, selected, 1, false);
    expect(selected).toEqual([3, 2]);
    expect(allSelected(ALL, selected)).toBe(false);
  });

  it('is never checked for an empty list', () => {
    expect(allSelected([], [])).toBe(false);
    expect(someSelected([], [])).toBe(false);
  });

  it('ticking twice keeps one copy', () => {
    expect(toggleOne(ALL, [1], 1, true)).toEqual([1]);
  });

  it('keeps ids the list does not know (e.g. a role deleted meanwhile)', () => {
    expect(toggleOne(ALL, [9], 1, true)).toEqual([1, 9]);
  });
});

describe('sameIds', () => {
  it('ignores order and notices additions and removals', () => {
    expect(sameIds([1, 2], [2, 1])).toBe(true);
    expect(sameIds([], [])).toBe(true);
    expect(sameIds([1, 2], [1])).toBe(false);
    expect(sameIds([1, 2], [1, 3])).toBe(false);
  });
});
