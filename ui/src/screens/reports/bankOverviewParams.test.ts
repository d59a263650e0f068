import { beforeEach, describe, expect, it } from 'vitest';
import { countChanged, DEFAULT_PARAMS, loadParams, saveParams, STORAGE_KEY } from './bankOverviewParams';

describe('bank overview parameters', () => {
  beforeEach(() => localStorage.clear());

  it('counts the parameters that differ from the defaults', () => {
    expect(countChanged(DEFAULT_PARAMS)).toBe(0);
    expect(countChanged({ ...DEFAULT_PARAMS, inOutFilter: 'Out' })).toBe(1);
    expect(countChanged({ ...DEFAULT_PARAMS, distribDriverFilter: 'Yes', dateGroupingType: 'Week', affectsBalanceFilter: 'All' })).toBe(3);
    expect(
      countChanged({ inOutFilter: 'Out', distribRvnFilter: 'No', distribDriverFilter: 'No', affectsBalanceFilter: 'No', dateGroupingType: 'Day' }),
    ).toBe(5);
  });

  it('starts from the defaults of spec 03: In, Yes, All, Yes, Month', () => {
    expect(loadParams()).toEqual({
      inOutFilter: 'In',
      distribRvnFilter: 'Yes',
      distribDriverFilter: 'All',
      affectsBalanceFilter: 'Yes',
      dateGroupingType: 'Month',
    });
  });

  it('saves under bankOverviewParams and restores', () => {
    const params = { ...DEFAULT_PARAMS, inOutFilter: 'Out', dateGroupingType: 'Half-Year' } as const;
    saveParams(params);
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '')).toEqual(params);
    expect(loadParams()).toEqual(params);
  });

  it('falls back to Month for an unknown grouping, and to the default for any unknown value', () => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ dateGroupingType: 'Fortnight', inOutFilter: 'Out', distribRvnFilter: 7 }));
    expect(loadParams()).toEqual({ ...DEFAULT_PARAMS, inOutFilter: 'Out' });
    localStorage.setItem(STORAGE_KEY, '{not json');
    expect(loadParams()).toEqual(DEFAULT_PARAMS);
  });
});
