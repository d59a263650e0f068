import { describe, expect, it } from 'vitest';
import {
  birthYearRange,
  datePattern,
  formatDate,
  formatDateOnly,
  formatMonth,
  fromIsoDate,
  monthPattern,
  parseDateText,
  parseMonthText,
  toIsoDate,
  type DateError,
} from './dates';

const TODAY = new Date(2026, 4, 20, 15, 30); // 20 May 2026, mid-afternoon

function parsed(text: string, format: string): string {
  const result = parseDateText(text, format, TODAY);
  return result.ok ? toIsoDate(result.date) : `error:${result.error}`;
}

describe('datePattern', () => {
  it.each([
    ['DD-MM-YYYY HH:mm:ss', 'DD-MM-YYYY'],
    ['DD/MM/YYYY HH:mm:ss', 'DD/MM/YYYY'],
    ['MM-DD-YYYY HH:mm:ss', 'MM-DD-YYYY'],
    ['MM/DD/YYYY HH:mm:ss', 'MM/DD/YYYY'],
    ['YYYY-MM-DD HH:mm:ss', 'YYYY-MM-DD'],
    ['YYYY/MM/DD HH:mm:ss', 'YYYY/MM/DD'],
    ['YYYY/MM/DD', 'YYYY/MM/DD'],
  ])('%s -> %s', (format, expected) => {
    expect(datePattern(format)).toBe(expected);
  });

  it.each([[''], [null], [undefined], ['DD-MMM-YYYY'], ['nonsense']])('falls back to DD-MM-YYYY for %s', (format) => {
    expect(datePattern(format)).toBe('DD-MM-YYYY');
  });
});

describe('parseDateText: the six formats', () => {
  it.each([
    ['31-12-1990', 'DD-MM-YYYY HH:mm:ss', '1990-12-31'],
    ['31/12/1990', 'DD/MM/YYYY HH:mm:ss', '1990-12-31'],
    ['12-31-1990', 'MM-DD-YYYY HH:mm:ss', '1990-12-31'],
    ['12/31/1990', 'MM/DD/YYYY HH:mm:ss', '1990-12-31'],
    ['1990-12-31', 'YYYY-MM-DD HH:mm:ss', '1990-12-31'],
    ['1990/12/31', 'YYYY/MM/DD HH:mm:ss', '1990-12-31'],
  ])('%s in %s is %s', (text, format, iso) => {
    expect(parsed(text, format)).toBe(iso);
  });

  it('reads the same digits differently by format', () => {
    expect(parsed('03-04-2001', 'DD-MM-YYYY HH:mm:ss')).toBe('2001-04-03');
    expect(parsed('03-04-2001', 'MM-DD-YYYY HH:mm:ss')).toBe('2001-03-04');
  });

  it('accepts one-digit days and months, surrounding blanks and any of - / . as separator', () => {
    expect(parsed(' 1-2-1985 ', 'DD-MM-YYYY HH:mm:ss')).toBe('1985-02-01');
    expect(parsed('1/2/1985', 'DD-MM-YYYY HH:mm:ss')).toBe('1985-02-01');
    expect(parsed('1.2.1985', 'DD/MM/YYYY HH:mm:ss')).toBe('1985-02-01');
    expect(parsed('1985/2/1', 'YYYY-MM-DD HH:mm:ss')).toBe('1985-02-01');
  });

  it('prefixes 20 to a two-digit year', () => {
    expect(parsed('15-06-05', 'DD-MM-YYYY HH:mm:ss')).toBe('2005-06-15');
    expect(parsed('06/15/19', 'MM/DD/YYYY HH:mm:ss')).toBe('2019-06-15');
    expect(parsed('21-02-03', 'YYYY-MM-DD HH:mm:ss')).toBe('2021-02-03');
    // 85 becomes 2085, which is in the future: the rule is applied literally.
    expect(parsed('01-01-85', 'DD-MM-YYYY HH:mm:ss')).toBe('error:inFuture');
  });

  it('uses the fallback DD-MM-YYYY when the format is unknown', () => {
    expect(parsed('02-03-1999', '')).toBe('1999-03-02');
  });
});

describe('parseDateText: invalid input', () => {
  it.each<[string, DateError]>([
    ['', 'invalidFormat'],
    ['abc', 'invalidFormat'],
    ['31-12', 'invalidFormat'],
    ['31-12-1990-1', 'invalidFormat'],
    ['3a-12-1990', 'invalidFormat'],
    ['31-13-1990', 'invalidFormat'], // month 13
    ['00-12-1990', 'invalidFormat'], // day 0
    ['32-01-1990', 'invalidFormat'],
    ['29-02-2001', 'invalidFormat'], // not a leap year
    ['31-04-2001', 'invalidFormat'], // April has 30 days
    ['123-01-1990', 'invalidFormat'],
    ['01-001-1990', 'invalidFormat'],
    ['01-01-199', 'invalidFormat'], // three-digit year
    ['01-01-19900', 'invalidFormat'],
    ['01-01-1', 'invalidFormat'],
    ['-01-1990', 'invalidFormat'],
    ['31 12 1990', 'invalidFormat'],
  ])('%j is %s', (text, error) => {
    expect(parsed(text, 'DD-MM-YYYY HH:mm:ss')).toBe(`error:${error}`);
  });

  it('accepts 29 February of a leap year', () => {
    expect(parsed('29-02-2000', 'DD-MM-YYYY HH:mm:ss')).toBe('2000-02-29');
  });

  it('refuses dates before 1 January 1900 and accepts that day', () => {
    expect(parsed('31-12-1899', 'DD-MM-YYYY HH:mm:ss')).toBe('error:beforeMinimum');
    expect(parsed('1000/01/01', 'YYYY/MM/DD HH:mm:ss')).toBe('error:beforeMinimum');
    expect(parsed('01-01-1900', 'DD-MM-YYYY HH:mm:ss')).toBe('1900-01-01');
  });

  it('refuses dates after today and accepts today', () => {
    expect(parsed('20-05-2026', 'DD-MM-YYYY HH:mm:ss')).toBe('2026-05-20');
    expect(parsed('21-05-2026', 'DD-MM-YYYY HH:mm:ss')).toBe('error:inFuture');
    expect(parsed('2030-01-01', 'YYYY-MM-DD HH:mm:ss')).toBe('error:inFuture');
  });
});

describe('formatting', () => {
  const date = new Date(1990, 11, 31, 8, 5, 9);

  it.each([
    ['DD-MM-YYYY HH:mm:ss', '31-12-1990 08:05:09'],
    ['DD/MM/YYYY HH:mm:ss', '31/12/1990 08:05:09'],
    ['MM-DD-YYYY HH:mm:ss', '12-31-1990 08:05:09'],
    ['MM/DD/YYYY HH:mm:ss', '12/31/1990 08:05:09'],
    ['YYYY-MM-DD HH:mm:ss', '1990-12-31 08:05:09'],
    ['YYYY/MM/DD HH:mm:ss', '1990/12/31 08:05:09'],
    ['DD-MMM-YYYY', '31-Dec-1990'],
  ])('formatDate in %s', (format, expected) => {
    expect(formatDate(date, format)).toBe(expected);
  });

  it('formatDateOnly keeps the date part and falls back to DD-MM-YYYY', () => {
    expect(formatDateOnly(date, 'MM/DD/YYYY HH:mm:ss')).toBe('12/31/1990');
    expect(formatDateOnly(date, undefined)).toBe('31-12-1990');
  });

  it('pads single digits', () => {
    expect(formatDateOnly(new Date(2001, 0, 2), 'YYYY/MM/DD HH:mm:ss')).toBe('2001/01/02');
    expect(toIsoDate(new Date(2001, 0, 2, 23, 59))).toBe('2001-01-02');
  });

  it('every format reads back what it writes', () => {
    for (const format of ['DD-MM-YYYY', 'DD/MM/YYYY', 'MM-DD-YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'YYYY/MM/DD']) {
      const text = formatDateOnly(new Date(1975, 6, 4), `${format} HH:mm:ss`);
      expect(parsed(text, `${format} HH:mm:ss`)).toBe('1975-07-04');
    }
  });
});

describe('fromIsoDate', () => {
  it('reads yyyy-MM-dd as a local date', () => {
    const date = fromIsoDate('1990-12-31');
    expect(date && [date.getFullYear(), date.getMonth(), date.getDate(), date.getHours()]).toEqual([1990, 11, 31, 0]);
  });

  it('uses only the date part of a timestamp', () => {
    expect(toIsoDate(fromIsoDate('1990-12-31T12:00:00Z')!)).toBe('1990-12-31');
  });

  it.each([[null], [undefined], [''], ['31-12-1990'], ['1990-02-30'], ['garbage']])('%j is null', (value) => {
    expect(fromIsoDate(value)).toBeNull();
  });
});

describe('birthYearRange', () => {
  it('runs from 1900 to the current year', () => {
    expect(birthYearRange(TODAY)).toBe('1900:2026');
  });
});

describe('months in the user format', () => {
  it('drops the day from each of the six patterns', () => {
    expect(['DD-MM-YYYY HH:mm:ss', 'DD/MM/YYYY', 'MM-DD-YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'YYYY/MM/DD', null].map(monthPattern)).toEqual([
      'MM-YYYY', 'MM/YYYY', 'MM-YYYY', 'MM/YYYY', 'YYYY-MM', 'YYYY/MM', 'MM-YYYY',
    ]);
  });

  it('writes and reads a month in a pattern, refusing what is not one', () => {
    expect(formatMonth('2019-05', 'MM-YYYY')).toBe('05-2019');
    expect(formatMonth('2019-05', 'YYYY/MM')).toBe('2019/05');
    expect(parseMonthText('05-2019', 'MM-YYYY')).toBe('2019-05');
    expect(parseMonthText(' 5-2019 ', 'MM-YYYY')).toBe('2019-05');
    expect(parseMonthText('2019/11', 'YYYY/MM')).toBe('2019-11');
    for (const bad of ['13-2019', '00-2019', '05-1899', '2019-05', '05/2019', 'May 2019', '']) {
      expect(parseMonthText(bad, 'MM-YYYY')).toBeNull();
    }
  });
});
