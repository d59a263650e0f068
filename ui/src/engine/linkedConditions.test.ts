import { describe, expect, it } from 'vitest';
import { linkedConditions } from './GridView';
import type { ViewMeta } from './types';

const view = {
  name: 'VW_BankFinal',
  columns: [
    { field: 'BookedDate', type: 'date' },
    { field: 'Actor', type: 'text' },
    { field: 'Id', type: 'int' },
  ],
} as unknown as ViewMeta;

describe('links into a grid', () => {
  it('reads equals, from..to ranges and empty values', () => {
    expect(linkedConditions(view, { Id: '42', Actor: 'Card', BookedDate: '2026-01-01..2026-01-31', Nope: 'x' })).toEqual([
      { field: 'Id', op: 'equals', value: 42 },
      { field: 'Actor', op: 'equals', value: 'Card' },
      { field: 'BookedDate', op: 'between', value: ['2026-01-01', '2026-01-31'] },
    ]);
    expect(linkedConditions(view, { Actor: '', Id: '1..5' })).toEqual([
      { field: 'Actor', op: 'isEmpty' },
      { field: 'Id', op: 'between', value: [1, 5] },
    ]);
    expect(linkedConditions(view, { Actor: 'a..b' })).toEqual([{ field: 'Actor', op: 'equals', value: 'a..b' }]);
  });

  it('reads ranges open at one end: from.. and ..to', () => {
    expect(linkedConditions(view, { Id: '31..', BookedDate: '..2026-01-31' })).toEqual([
      { field: 'Id', op: 'gte', value: 31 },
      { field: 'BookedDate', op: 'lte', value: '2026-01-31' },
    ]);
    // ".." alone names no range
    expect(linkedConditions(view, { Id: '..' })).toEqual([{ field: 'Id', op: 'equals', value: '..' }]);
  });
});
