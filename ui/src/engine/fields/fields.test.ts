import { describe, expect, it } from 'vitest';
import type { ColumnMeta, FieldTypeName } from '../types';
import {
  datePart,
  defaultOp,
  filterCondition,
  filterOps,
  formatDecimal,
  formatValue,
  normalizeNumber,
  parseNumber,
  parseInput,
  roundDecimal,
  sameValue,
  toInputText,
} from '.';

const ALL_OPS = ['contains', 'startsWith', 'endsWith', 'equals', 'notEquals', 'lt', 'lte', 'gt', 'gte', 'between', 'in', 'isEmpty', 'isNotEmpty'] as const;

function col(type: FieldTypeName, extra: Partial<ColumnMeta> = {}): ColumnMeta {
  return { field: 'F', type, label: 'x', sortable: true, ops: [...ALL_OPS], ...extra };
}

describe('roundDecimal', () => {
  it.each([
    ['1234.5', 2, '1234.50'],
    ['1234.565', 2, '1234.57'],
    ['1234.564', 2, '1234.56'],
    ['-0.004', 2, '0.00'],
    ['-1.005', 2, '-1.01'],
    ['9.999', 2, '10.00'],
    ['0.1234567', 6, '0.123457'],
    ['12', 0, '12'],
    ['12.5', 0, '13'],
    ['.5', 1, '0.5'],
    ['99999999999999999999.995', 2, '100000000000000000000.00'],
  ])('%s to %i decimals is %s', (value, scale, expected) => {
    expect(roundDecimal(value, scale)).toBe(expected);
  });

  it('refuses what is not a plain decimal', () => {
    expect(roundDecimal('1e5', 2)).toBeNull();
    expect(roundDecimal('abc', 2)).toBeNull();
    expect(roundDecimal('', 2)).toBeNull();
  });
});

describe('formatDecimal', () => {
  it.each([
    ['en', '1234567.5', 2, '1,234,567.50'],
    ['en', '-1234.5', 2, '-1,234.50'],
    ['pt', '1234567.5', 2, '1.234.567,50'],
    ['es', '1234.5', 2, '1234,50'],
    ['es', '1234567.5', 2, '1.234.567,50'],
    ['en', '0.1234567', 6, '0.123457'],
    ['en', '1500', 0, '1,500'],
  ])('%s %s scale %i -> %s', (locale, value, scale, expected) => {
    expect(formatDecimal(value, scale, locale)).toBe(expected);
  });

  it('groups Swedish numbers with a space and a decimal comma', () => {
    expect(formatDecimal('1234567.5', 2, 'sv').replace(/\s/g, ' ')).toBe('1 234 567,50');
  });

  it('shows nothing for null and the raw text for garbage', () => {
    expect(formatDecimal(null, 2, 'en')).toBe('');
    expect(formatDecimal('n/a', 2, 'en')).toBe('n/a');
  });
});

describe('normalizeNumber', () => {
  it.each([
    ['en', '1,234.50', '1234.50'],
    ['en', ' 12 ', '12'],
    ['sv', '1 234,5', '1234.5'],
    ['pt', '1.234,5', '1234.5'],
    ['en', '-0.5', '-0.5'],
    ['en', '.5', '.5'],
    ['en', '5.', '5'],
  ])('%s %j -> %s', (locale, text, expected) => {
    expect(normalizeNumber(text, locale)).toBe(expected);
  });

  it.each(['abc', '1.2.3', '1e5', '--1', ''])('%j is not a number', (text) => {
    expect(normalizeNumber(text, 'en')).toBeNull();
  });
});

describe('parseNumber: a group separator only before groups of three digits', () => {
  // [locale, typed, plain decimal or the refusal]
  const cases: Record<string, [string, string][]> = {
    en: [
      ['12.50', '12.50'],
      ['1,234.50', '1234.50'],
      ['1,234,567', '1234567'],
      ['1 234.5', '1234.5'],
      ['-1,000', '-1000'],
      ['12,50', 'badGroup'],
      ['1,23', 'badGroup'],
      ['1,2345', 'badGroup'],
      [',123', 'badGroup'],
      ['1234,567', 'badGroup'],
      ['1,234.5,0', 'badGroup'],
      ['1.2.3', 'badGroup'],
      ['12a', 'notDecimal'],
    ],
    sv: [
      ['12,50', '12.50'],
      ['1 234,5', '1234.5'],
      ['1\u00a0234,5', '1234.5'],
      ['1\u202f234\u202f567,25', '1234567.25'],
      ['12 50', 'badGroup'],
      ['12.50', 'badGroup'],
      ['1 23,5', 'badGroup'],
    ],
    es: [
      ['12,50', '12.50'],
      ['1234,50', '1234.50'],
      ['1.234,50', '1234.50'],
      ['1.234.567', '1234567'],
      ['12.50', 'badGroup'],
      ['1.2345', 'badGroup'],
      ['1,2,3', 'badGroup'],
    ],
    pt: [
      ['12,50', '12.50'],
      ['1.234,5', '1234.5'],
      ['-0,5', '-0.5'],
      ['12.50', 'badGroup'],
      ['12.5', 'badGroup'],
      ['1.23,5', 'badGroup'],
    ],
  };
  for (const [locale, rows] of Object.entries(cases)) {
    it.each(rows)(`${locale} %j -> %s`, (typed, expected) => {
      const parsed = parseNumber(typed, locale);
      if (expected === 'badGroup' || expected === 'notDecimal') expect(parsed).toEqual({ ok: false, error: expected });
      else expect(parsed).toEqual({ ok: true, value: expected });
    });
  }

  it('a decimal cell refuses more decimals than its column holds, trailing zeros aside', () => {
    const amount = col('decimal', { scale: 2 });
    expect(parseInput('1234.567', amount, 'en')).toEqual({ ok: false, error: 'tooManyDecimals' });
    expect(parseInput('1234.560', amount, 'en')).toEqual({ ok: true, value: '1234.560' });
    expect(parseInput('12,50', amount, 'en')).toEqual({ ok: false, error: 'badGroup' });
    expect(parseInput('12.50', amount, 'pt')).toEqual({ ok: false, error: 'badGroup' });
  });
});

describe('formatValue', () => {
  const ctx = { locale: 'en', dateFormat: 'MM/DD/YYYY HH:mm:ss' };

  it('shows amounts with the column scale and rates with 6 decimals', () => {
    expect(formatValue('1234.5', col('decimal', { scale: 2 }), ctx)).toBe('1,234.50');
    expect(formatValue('7.4612', col('decimal', { scale: 6 }), ctx)).toBe('7.461200');
  });

  it('shows a date in the user date format without the time part', () => {
    expect(formatValue('2026-03-04', col('date'), ctx)).toBe('03/04/2026');
    expect(formatValue('2026-03-04', col('date'), { locale: 'en' })).toBe('04-03-2026');
    expect(formatValue('2026-03-04', col('date'), { locale: 'en', dateFormat: 'YYYY/MM/DD HH:mm:ss' })).toBe('2026/03/04');
  });

  it('shows a datetime in local time with the full user format', () => {
    const iso = new Date(2026, 2, 4, 9, 5, 7).toISOString();
    expect(formatValue(iso, col('datetime'), ctx)).toBe('03/04/2026 09:05:07');
    expect(formatValue(iso, col('datetime'), { locale: 'en' })).toBe('04-03-2026 09:05:07');
  });

  it('shows booleans as yes/no and enums through the label function', () => {
    const yesNo = { yes: 'Ja', no: 'Nej' };
    expect(formatValue(true, col('bool'), { locale: 'sv', yesNo })).toBe('Ja');
    expect(formatValue(false, col('bool'), { locale: 'sv', yesNo })).toBe('Nej');
    expect(formatValue('1', col('enum'), { locale: 'en', enumLabel: (_c, v) => `#${v}` })).toBe('#1');
  });

  it('shows ints without grouping and null as empty', () => {
    expect(formatValue(20260, col('int'), ctx)).toBe('20260');
    expect(formatValue(null, col('text'), ctx)).toBe('');
  });

  it('datePart falls back to DD-MM-YYYY', () => {
    expect(datePart(undefined)).toBe('DD-MM-YYYY');
    expect(datePart('nonsense')).toBe('DD-MM-YYYY');
    expect(datePart('DD/MM/YYYY HH:mm:ss')).toBe('DD/MM/YYYY');
  });
});

describe('parseInput (editor text -> API value)', () => {
  it('text honours maxLength; empty is null', () => {
    expect(parseInput('abc', col('text', { maxLength: 3 }), 'en')).toEqual({ ok: true, value: 'abc' });
    expect(parseInput('abcd', col('text', { maxLength: 3 }), 'en')).toEqual({ ok: false, error: 'tooLong' });
    expect(parseInput('', col('text'), 'en')).toEqual({ ok: true, value: null });
  });

  it('int is a whole number', () => {
    expect(parseInput(' 42 ', col('int'), 'en')).toEqual({ ok: true, value: 42 });
    expect(parseInput('4.2', col('int'), 'en')).toEqual({ ok: false, error: 'notInteger' });
  });

  it('decimal is sent as an exact string in the language format', () => {
    expect(parseInput('1,234.5', col('decimal'), 'en')).toEqual({ ok: true, value: '1234.5' });
    expect(parseInput('0,12345678', col('decimal'), 'pt')).toEqual({ ok: true, value: '0.12345678' });
    expect(parseInput('x', col('decimal'), 'en')).toEqual({ ok: false, error: 'notDecimal' });
  });

  it('date is yyyy-MM-dd of a real day', () => {
    expect(parseInput('2026-02-28', col('date'), 'en')).toEqual({ ok: true, value: '2026-02-28' });
    expect(parseInput('2026-02-30', col('date'), 'en')).toEqual({ ok: false, error: 'notDate' });
  });

  it('enum only takes its values; bool only true/false', () => {
    expect(parseInput('IN', col('enum', { values: ['IN', 'OUT'] }), 'en')).toEqual({ ok: true, value: 'IN' });
    expect(parseInput('UP', col('enum', { values: ['IN', 'OUT'] }), 'en')).toEqual({ ok: false, error: 'notAllowed' });
    expect(parseInput('true', col('bool'), 'en')).toEqual({ ok: true, value: true });
  });

  it('toInputText round-trips a decimal in the language format', () => {
    expect(toInputText('1234.50', col('decimal'), 'sv')).toBe('1234,50');
    expect(parseInput(toInputText('1234.50', col('decimal'), 'sv'), col('decimal'), 'sv')).toEqual({ ok: true, value: '1234.50' });
    expect(toInputText('2026-03-04', col('date'), 'en')).toBe('2026-03-04');
  });
});

describe('filters', () => {
  it('offers the server ops, minus what a datetime cannot input', () => {
    expect(filterOps(col('text', { ops: ['contains', 'equals'] }))).toEqual(['contains', 'equals']);
    expect(filterOps(col('datetime'))).not.toContain('in');
    expect(defaultOp(col('text'))).toBe('contains');
    expect(defaultOp(col('int', { ops: ['equals', 'lt'] }))).toBe('equals');
  });

  it('builds conditions by type', () => {
    expect(filterCondition(col('text'), { op: 'contains', value: 'fee' }, 'en')).toEqual({ field: 'F', op: 'contains', value: 'fee' });
    expect(filterCondition(col('decimal'), { op: 'gte', value: '1,000.5' }, 'en')).toEqual({ field: 'F', op: 'gte', value: '1000.5' });
    expect(filterCondition(col('int'), { op: 'between', value: '1', to: '5' }, 'en')).toEqual({ field: 'F', op: 'between', value: [1, 5] });
    expect(filterCondition(col('text'), { op: 'in', value: 'USD, EUR' }, 'en')).toEqual({ field: 'F', op: 'in', value: ['USD', 'EUR'] });
    expect(filterCondition(col('enum'), { op: 'in', value: '', values: ['IN'] }, 'en')).toEqual({ field: 'F', op: 'in', value: ['IN'] });
    expect(filterCondition(col('text'), { op: 'isEmpty', value: '' }, 'en')).toEqual({ field: 'F', op: 'isEmpty' });
  });

  it('sends nothing while a value is missing or invalid', () => {
    expect(filterCondition(col('text'), { op: 'contains', value: '' }, 'en')).toBeNull();
    expect(filterCondition(col('int'), { op: 'equals', value: '1.5' }, 'en')).toBeNull();
    expect(filterCondition(col('int'), { op: 'between', value: '1', to: '' }, 'en')).toBeNull();
  });

  it('a datetime filter covers whole local days', () => {
    const start = new Date(2026, 2, 4).toISOString();
    const end = new Date(2026, 2, 4, 23, 59, 59, 999).toISOString();
    expect(filterCondition(col('datetime'), { op: 'equals', value: '2026-03-04' }, 'en')).toEqual({ field: 'F', op: 'between', value: [start, end] });
    expect(filterCondition(col('datetime'), { op: 'lte', value: '2026-03-04' }, 'en')).toEqual({ field: 'F', op: 'lte', value: end });
    expect(filterCondition(col('datetime'), { op: 'gte', value: '2026-03-04' }, 'en')).toEqual({ field: 'F', op: 'gte', value: start });
  });
});

describe('sameValue', () => {
  it('treats equal amounts and empty values as unchanged', () => {
    expect(sameValue(col('decimal'), '1234.50', '1234.5')).toBe(true);
    expect(sameValue(col('decimal'), '-0.00', '0')).toBe(true);
    expect(sameValue(col('decimal'), '1234.50', '1234.51')).toBe(false);
    expect(sameValue(col('text'), null, '')).toBe(true);
    expect(sameValue(col('text'), 'a', 'A')).toBe(false);
    expect(sameValue(col('int'), 5, '5')).toBe(true);
  });
});
