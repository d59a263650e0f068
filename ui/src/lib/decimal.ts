/**
 * Decimal strings, exactly: amounts travel as text ("-1234.50") and are never turned into floats
 * to be shown, compared, summed or sent. Reading and writing them the reader's way (the
 * language's decimal separator and grouping) lives here too, so every screen and the grid's
 * fields read and show numbers alike.
 */

export interface Separators {
  group: string;
  decimal: string;
  /** Whether the language groups four-digit numbers (es does not: "1234,50"). */
  groupFour: boolean;
}

const separatorCache = new Map<string, Separators>();

export function separators(locale: string): Separators {
  const cached = separatorCache.get(locale);
  if (cached) return cached;
  let result: Separators = { group: ',', decimal: '.', groupFour: true };
  try {
    const parts = new Intl.NumberFormat(locale).formatToParts(1234567.5);
    const four = new Intl.NumberFormat(locale).formatToParts(1234.5);
    result = {
      group: parts.find((p) => p.type === 'group')?.value ?? ',',
      decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
      groupFour: four.some((p) => p.type === 'group'),
    };
  } catch {
    // an unknown locale keeps the en defaults
  }
  separatorCache.set(locale, result);
  return result;
}

const DECIMAL = /^(-)?(\d*)(?:\.(\d*))?$/;

/** Adds one to a string of digits ("0999" -> "1000"). */
function incrementDigits(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] === '9') {
      out[i] = '0';
    } else {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
  }
  return `1${out.join('')}`;
}

/**
 * Rounds an exact decimal string to `scale` decimals, half away from zero, without floats:
 * ("1234.565", 2) -> "1234.57". Returns null for text that is not a plain decimal.
 */
export function roundDecimal(value: string, scale: number): string | null {
  const m = DECIMAL.exec(value.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const negative = m[1] === '-';
  const intPart = (m[2] || '0').replace(/^0+(?=\d)/, '');
  const frac = m[3] ?? '';
  let digits = intPart + frac.padEnd(scale, '0').slice(0, scale);
  if (Number(frac[scale] ?? '0') >= 5) digits = incrementDigits(digits);
  const cut = digits.length - scale;
  const whole = (digits.slice(0, cut) || '0').replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(cut);
  const isZero = /^0*$/.test(whole + fraction);
  return `${negative && !isZero ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

function group(intDigits: string, sep: Separators): string {
  if (intDigits.length < 4 || (intDigits.length === 4 && !sep.groupFour)) return intDigits;
  return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, sep.group);
}

/** An exact decimal string shown with `scale` decimals and the language's grouping. */
export function formatDecimal(value: unknown, scale: number | undefined, locale: string): string {
  if (value === null || value === undefined || value === '') return '';
  const text = String(value);
  const rounded = scale === undefined ? text.trim() : roundDecimal(text, scale);
  const m = rounded === null ? null : DECIMAL.exec(rounded);
  if (!m) return text;
  const sep = separators(locale);
  const whole = group(m[2] || '0', sep);
  return `${m[1] ?? ''}${whole}${m[3] !== undefined ? sep.decimal + m[3] : ''}`;
}

/** Characters read as a group separator in every language besides its own: spaces. */
const SPACES = /[\s\u00a0\u202f']/;

/**
 * Typed number text -> a plain "1234.5", or why it is not one. The language's decimal
 * separator is read as the point; a group separator (the language's own, or a space) is
 * accepted only between groups of exactly three digits, as the importer does, so "12,50" in
 * English or "12.50" in Spanish is refused instead of becoming 1250.
 */
export function parseNumber(text: string, locale: string): { ok: true; value: string } | { ok: false; error: 'notDecimal' | 'badGroup' } {
  const sep = separators(locale);
  let s = text.trim();
  const negative = s.startsWith('-');
  if (negative) s = s.slice(1);
  const point = s.indexOf(sep.decimal);
  const intText = point < 0 ? s : s.slice(0, point);
  const frac = point < 0 ? undefined : s.slice(point + 1);
  if (frac !== undefined && !/^\d*$/.test(frac)) {
    // A second decimal separator, or a group separator after the point.
    return { ok: false, error: /^[\d\s\u00a0\u202f'.,]*$/.test(frac) ? 'badGroup' : 'notDecimal' };
  }
  const isGroup = (c: string) => c === sep.group || SPACES.test(c);
  const groups: string[] = [''];
  for (const c of intText) {
    if (c >= '0' && c <= '9') groups[groups.length - 1] += c;
    else if (isGroup(c)) groups.push('');
    else return { ok: false, error: c === '.' || c === ',' ? 'badGroup' : 'notDecimal' };
  }
  const [lead = '', ...rest] = groups;
  if (rest.length > 0 && (lead.length < 1 || lead.length > 3 || rest.some((g) => g.length !== 3))) {
    return { ok: false, error: 'badGroup' };
  }
  const whole = groups.join('');
  if (whole === '' && !frac) return { ok: false, error: 'notDecimal' };
  const body = frac ? `${whole}.${frac}` : whole;
  return { ok: true, value: `${negative ? '-' : ''}${body}` };
}

/** A plain decimal string as the API sends and takes it ("-1234.50"). */
export const PLAIN_DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;

/** Compares two plain decimal strings exactly: -1, 0 or 1 (no float in between). */
export function compareDecimal(a: string, b: string): number {
  const split = (s: string) => {
    const negative = s.startsWith('-');
    const [whole = '', frac = ''] = s.replace(/^-/, '').split('.');
    return { negative, whole: whole.replace(/^0+/, ''), frac: frac.replace(/0+$/, '') };
  };
  const x = split(a);
  const y = split(b);
  const zero = (p: { whole: string; frac: string }) => p.whole === '' && p.frac === '';
  const xs = zero(x) ? 0 : x.negative ? -1 : 1;
  const ys = zero(y) ? 0 : y.negative ? -1 : 1;
  if (xs !== ys) return xs < ys ? -1 : 1;
  if (xs === 0) return 0;
  let magnitude = 0;
  if (x.whole.length !== y.whole.length) magnitude = x.whole.length < y.whole.length ? -1 : 1;
  else {
    const width = Math.max(x.frac.length, y.frac.length);
    const dx = x.whole + x.frac.padEnd(width, '0');
    const dy = y.whole + y.frac.padEnd(width, '0');
    magnitude = dx === dy ? 0 : dx < dy ? -1 : 1;
  }
  return xs * magnitude;
}

/** parseNumber's value, or null when the text is not a number. */
export function normalizeNumber(text: string, locale: string): string | null {
  const parsed = parseNumber(text, locale);
  return parsed.ok ? parsed.value : null;
}

/**
 * A plain decimal string without the zeros that change nothing ("01.50" -> "1.5", "-0.0" -> "0"),
 * so equal amounts compare equal as text; null for text that is not one.
 */
export function canonicalDecimal(value: string): string | null {
  const m = DECIMAL.exec(value.trim());
  if (!m) return null;
  const whole = (m[2] || '0').replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const body = frac ? `${whole}.${frac}` : whole;
  return body === '0' ? '0' : `${m[1] ?? ''}${body}`;
}

/** The decimals of a plain decimal string that count (trailing zeros do not): "1.2300" has 2. */
export function significantDecimals(value: string): number {
  return (value.split('.')[1] ?? '').replace(/0+$/, '').length;
}

/** A plain decimal string as typed in the language: its point becomes the language's separator. */
export function toLocaleInput(value: string, locale: string): string {
  return separators(locale).decimal === ',' ? value.replace('.', ',') : value;
}

// ---- cents ---------------------------------------------------------------------------------

/** Cents of an exact decimal string ("-12.5" -> -1250n), rounded half away from zero; null when it is not one. */
export function toCents(amount: string | number | null | undefined): bigint | null {
  if (amount === null || amount === undefined) return null;
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(String(amount).trim());
  if (!m) return null;
  const frac = (m[3] ?? '').padEnd(3, '0');
  // Round half away from zero on the third decimal.
  let cents = BigInt(m[2] ?? '0') * 100n + BigInt(frac.slice(0, 2));
  if (Number(frac[2]) >= 5) cents += 1n;
  return m[1] ? -cents : cents;
}

/** Cents as a plain decimal string with 2 decimals (-1205n -> "-12.05"). */
export function fromCents(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const whole = abs / 100n;
  const rest = String(abs % 100n).padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${rest}`;
}
