/**
 * Dates in the user's own format (spec 01 §5 and §9). A user picks one of six date formats,
 * each followed by " HH:mm:ss"; typed dates of birth are read in the date part of that format
 * and sent to the server as yyyy-MM-dd. Pure functions with no React and no clock of their own
 * (callers pass `today`), so the rules are easy to test.
 */

/** The date parts of the six user formats, in the order the spec lists them. */
export const DATE_PATTERNS = ['DD-MM-YYYY', 'DD/MM/YYYY', 'MM-DD-YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'YYYY/MM/DD'] as const;
export type DatePattern = (typeof DATE_PATTERNS)[number];

/** Display fallback when a user has no (or an unknown) format. */
export const FALLBACK_DATE_PATTERN: DatePattern = 'DD-MM-YYYY';

/** The user form's default (spec 01 §9). */
export const DEFAULT_USER_DATE_FORMAT = 'DD-MM-YYYY HH:mm:ss';

/** The earliest date of birth accepted: 1 January 1900. */
export const MIN_BIRTH_DATE = new Date(1900, 0, 1);
export const MIN_BIRTH_YEAR = 1900;

/** Why typed text is not an acceptable date of birth. */
export type DateError = 'invalidFormat' | 'beforeMinimum' | 'inFuture';

export type ParseResult = { ok: true; date: Date } | { ok: false; error: DateError };

/** The date part of a user format ("MM/DD/YYYY HH:mm:ss" -> "MM/DD/YYYY"), or the fallback. */
export function datePattern(format: string | null | undefined): DatePattern {
  const part = (format ?? '').trim().split(/\s+/)[0]?.toUpperCase() ?? '';
  return (DATE_PATTERNS as readonly string[]).includes(part) ? (part as DatePattern) : FALLBACK_DATE_PATTERN;
}

/** Local midnight of the given moment. */
export function startOfDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

const MONTH_ABBREVIATIONS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Formats a date in a user format. Understands YYYY, MMM (month abbreviation, for the
 * "DD-MMM-YYYY" display default), MM, DD, HH, mm and ss; other characters are kept.
 */
export function formatDate(date: Date, format: string): string {
  return format.replace(/YYYY|MMM|MM|DD|HH|mm|ss/g, (token) => {
    switch (token) {
      case 'YYYY':
        return pad(date.getFullYear(), 4);
      case 'MMM':
        return MONTH_ABBREVIATIONS[date.getMonth()] ?? '';
      case 'MM':
        return pad(date.getMonth() + 1);
      case 'DD':
        return pad(date.getDate());
      case 'HH':
        return pad(date.getHours());
      case 'mm':
        return pad(date.getMinutes());
      default:
        return pad(date.getSeconds());
    }
  });
}

/** Formats only the date part of a user format ("DD-MM-YYYY HH:mm:ss" shows "31-12-1990"). */
export function formatDateOnly(date: Date, format: string | null | undefined): string {
  return formatDate(date, datePattern(format));
}

/** yyyy-MM-dd of the local calendar day: what the server expects for a date of birth. */
export function toIsoDate(date: Date): string {
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A real calendar day? (31 February is not.) */
function isRealDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const probe = new Date(year, month - 1, day);
  return probe.getFullYear() === year && probe.getMonth() === month - 1 && probe.getDate() === day;
}

function makeDate(year: number, month: number, day: number): Date {
  const date = new Date(year, month - 1, day);
  // new Date() maps years 0-99 to 1900-1999; set the year again to keep it literal.
  date.setFullYear(year, month - 1, day);
  return date;
}

/**
 * Reads a yyyy-MM-dd date from the server (a longer ISO timestamp counts by its date part)
 * as a local date. Returns null for empty or malformed input.
 */
export function fromIsoDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return isRealDay(year, month, day) ? makeDate(year, month, day) : null;
}

/**
 * Parses typed text in the date part of `format`. The separator may be "-", "/" or ".",
 * whatever the format shows; days and months take one or two digits; a two-digit year gets
 * "20" prefixed (spec 01 §5). Anything else, or a day that does not exist, is invalidFormat.
 * A valid date before 1 January 1900 is beforeMinimum; after `today` it is inFuture.
 */
/** `bounded`: a date of birth (not before 1900, not after today); false for any real day. */
export function parseDateText(text: string, format: string | null | undefined, today: Date = new Date(), bounded = true): ParseResult {
  const parts = text.trim().split(/[-/.]/);
  if (parts.length !== 3 || parts.some((part) => !/^\d+$/.test(part))) return { ok: false, error: 'invalidFormat' };

  const order = datePattern(format).split(/[-/]/) as Array<'DD' | 'MM' | 'YYYY'>;
  const values: Record<'DD' | 'MM' | 'YYYY', string> = { DD: '', MM: '', YYYY: '' };
  order.forEach((token, index) => {
    values[token] = parts[index] ?? '';
  });

  if (values.DD.length > 2 || values.MM.length > 2) return { ok: false, error: 'invalidFormat' };
  let yearText = values.YYYY;
  if (yearText.length === 2) yearText = `20${yearText}`;
  if (yearText.length !== 4) return { ok: false, error: 'invalidFormat' };

  const [year, month, day] = [Number(yearText), Number(values.MM), Number(values.DD)];
  if (!isRealDay(year, month, day)) return { ok: false, error: 'invalidFormat' };

  const date = makeDate(year, month, day);
  if (!bounded) return { ok: true, date };
  if (date < MIN_BIRTH_DATE) return { ok: false, error: 'beforeMinimum' };
  if (date > startOfDay(today)) return { ok: false, error: 'inFuture' };
  return { ok: true, date };
}

/** The calendar's year range, "1900:<this year>". */
export function birthYearRange(today: Date = new Date()): string {
  return `${MIN_BIRTH_YEAR}:${today.getFullYear()}`;
}

/** The month part of a user format: its date pattern without the day ("DD-MM-YYYY" -> "MM-YYYY"). */
export function monthPattern(format: string | null | undefined): string {
  return datePattern(format).replace(/DD[-/]|[-/]DD/, '');
}

/** A month (YYYY-MM) in a month pattern ("MM-YYYY" -> "05-2019"). */
export function formatMonth(month: string, pattern: string): string {
  const [year = '', mon = ''] = month.split('-');
  return pattern.replace('YYYY', year).replace('MM', mon);
}

/** Typed text read in a month pattern, as YYYY-MM; null when it is not a month of 1900-9999. */
export function parseMonthText(text: string, pattern: string): string | null {
  const source = pattern.replace(/[-/]/g, (sep) => `\\${sep}`).replace('YYYY', '(\\d{4})').replace('MM', '(\\d{1,2})');
  const m = new RegExp(`^\\s*${source}\\s*$`).exec(text);
  if (!m) return null;
  const yearFirst = pattern.startsWith('YYYY');
  const year = Number(yearFirst ? m[1] : m[2]);
  const month = Number(yearFirst ? m[2] : m[1]);
  if (month < 1 || month > 12 || year < 1900 || year > 9999) return null;
  return `${year}-${pad(month)}`;
}
