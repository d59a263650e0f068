import { describe, expect, it } from 'vitest';
import {
  canonicalDecimal,
  compareDecimal,
  formatDecimal,
  fromCents,
  normalizeNumber,
  parseNumber,
  roundDecimal,
  significantDecimals,
  toCents,
  toLocaleInput,
} from './decimal';

describe('roundDecimal', () => {
  it.each([
    ['1234.565', 2, '1234.57'],
    ['-1234.565', 2, '-1234.57'],
    ['9.995', 2, '10.00'],
    ['-0.001', 2, '0.00'],
    ['12', 2, '12.00'],
    ['.5', 0, '1'],
    ['abc', 2, null],
  ])('%s to %i decimals is %s', (value, scale, expected) => {
    expect(roundDecimal(value, scale)).toBe(expected);
  });
});

describe('formatDecimal', () => {
  it.each([
    ['1234567.5', 2, 'en', '1,234,567.50'],
    ['1234.5', 2, 'es', '1234,50'],
    ['-1234.5', 2, 'sv', '-1\u00a0234,50'],
    ['0.125', 2, 'en', '0.13'],
    [null, 2, 'en', ''],
    ['n/a', 2, 'en', 'n/a'],
  ])('%s with %i decimals in %s is %s', (value, scale, locale, expected) => {
    expect(formatDecimal(value, scale, locale)).toBe(expected);
  });
});

describe('parseNumber and normalizeNumber', () => {
  it.each([
    ['1,234.50', 'en', '1234.50'],
    ['1 234,50', 'sv', '1234.50'],
    ['-12,5', 'es', '-12.5'],
    ['12,50', 'en', null],
    ['12.50', 'es', null],
    ['abc', 'en', null],
  ])('%s in %s is %s', (text, locale, expected) => {
    expect(normalizeNumber(text, locale)).toBe(expected);
  });

  it('says why text is not a number', () => {
    expect(parseNumber('12,50', 'en')).toEqual({ ok: false, error: 'badGroup' });
    expect(parseNumber('12x', 'en')).toEqual({ ok: false, error: 'notDecimal' });
  });
});

describe('comparing and canonical text', () => {
  it.each([
    ['1.50', '1.5', 0],
    ['-2', '1', -1],
    ['10', '9.99', 1],
    ['-0.00', '0', 0],
    ['123456789012345678.01', '123456789012345678.02', -1],
  ])('compareDecimal(%s, %s) is %i', (a, b, expected) => {
    expect(compareDecimal(a, b)).toBe(expected);
  });

  it.each([
    ['01.50', '1.5'],
    ['-0.0', '0'],
    ['-12.300', '-12.3'],
    ['7', '7'],
    ['1e5', null],
  ])('canonicalDecimal(%s) is %s', (value, expected) => {
    expect(canonicalDecimal(value)).toBe(expected);
  });

  it.each([
    ['1.2300', 2],
    ['12', 0],
    ['0.125', 3],
  ])('%s has %i significant decimals', (value, expected) => {
    expect(significantDecimals(value)).toBe(expected);
  });

  it('writes the point the language way for typing', () => {
    expect(toLocaleInput('1234.5', 'sv')).toBe('1234,5');
    expect(toLocaleInput('1234.5', 'en')).toBe('1234.5');
  });
});

describe('cents', () => {
  it.each([
    ['-12.5', -1250n],
    ['0.005', 1n],
    ['-0.005', -1n],
    ['12.344', 1234n],
    ['123456789012345678.99', 12345678901234567899n],
    ['1,5', null],
    [null, null],
  ])('toCents(%s) is %s', (value, expected) => {
    expect(toCents(value)).toBe(expected);
  });

  it.each([
    [-1205n, '-12.05'],
    [5n, '0.05'],
    [0n, '0.00'],
    [12345678901234567899n, '123456789012345678.99'],
  ])('fromCents(%s) is %s', (cents, expected) => {
    expect(fromCents(cents)).toBe(expected);
  });
});
