/**
 * The UI side of the server's field-type registry (engine/fields.go, STYLE.md 4): for each
 * column type, how a server value is shown, which editor and filter input it gets, and how
 * typed text becomes the value the API expects. Pure functions, no React, so every rule is
 * unit-tested in fields.test.ts.
 *
 * Server values: decimals are exact strings ("1234.50"), dates "yyyy-MM-dd", datetimes RFC 3339
 * in UTC, int enums strings. Decimals are never turned into floats for display or saving, so
 * an amount shows and saves exactly as stored.
 */
import type { ColumnMeta, FieldTypeName, FilterCondition, FilterOp } from '../types';
import { canonicalDecimal, formatDecimal, parseNumber, significantDecimals, toLocaleInput } from '../../lib/decimal';

/** The input a cell editor or a filter value uses for a type. */
export type InputKind = 'text' | 'number' | 'date' | 'enum' | 'bool';

export interface FormatContext {
  /** The UI language (number grouping and decimal separator follow it). */
  locale: string;
  /** The user's date format, e.g. "DD-MM-YYYY HH:mm:ss"; the fallback when empty. */
  dateFormat?: string | null;
  /** Labels for enum values and booleans (translated by the caller). */
  enumLabel?: (column: ColumnMeta, value: string) => string;
  yesNo?: { yes: string; no: string };
}

export type ParseResult = { ok: true; value: unknown } | { ok: false; error: ParseError };
export type ParseError = 'required' | 'tooLong' | 'notInteger' | 'notDecimal' | 'badGroup' | 'tooManyDecimals' | 'notDate' | 'notAllowed';

interface FieldTypeDef {
  input: InputKind;
  /** Numbers read right-aligned. */
  align: 'start' | 'end';
  /** The operators the UI offers; the column's `ops` from the server limit them further. */
  uiOps?: FilterOp[];
  format(value: unknown, column: ColumnMeta, ctx: FormatContext): string;
  /** Typed text (an editor or filter input) -> API value. Empty text is null. */
  parse(text: string, column: ColumnMeta, locale: string): ParseResult;
  /** API value -> the text an editor starts with. */
  toInput(value: unknown, column: ColumnMeta, locale: string): string;
}

/** Display fallback when a user has no date format (spec 01 §9). */
export const FALLBACK_DATE_FORMAT = 'DD-MM-YYYY';
const DATE_PARTS = /YYYY|MMM|MM|DD|HH|mm|ss/g;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** "DD-MM-YYYY HH:mm:ss" -> "DD-MM-YYYY": date-only columns drop the time part. */
export function datePart(format: string | null | undefined): string {
  const first = (format ?? '').trim().split(/\s+/)[0] ?? '';
  return /YYYY/.test(first) ? first : FALLBACK_DATE_FORMAT;
}

/** The whole user format with a time part ("HH:mm:ss" added when the format has none). */
export function dateTimeFormat(format: string | null | undefined): string {
  const trimmed = (format ?? '').trim();
  if (!/YYYY/.test(trimmed)) return `${FALLBACK_DATE_FORMAT} HH:mm:ss`;
  return /HH/.test(trimmed) ? trimmed : `${trimmed} HH:mm:ss`;
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
}

export function formatParts(p: Parts, format: string): string {
  return format.replace(DATE_PARTS, (token) => {
    switch (token) {
      case 'YYYY':
        return pad(p.year, 4);
      case 'MMM':
        return MONTHS[p.month - 1] ?? '';
      case 'MM':
        return pad(p.month);
      case 'DD':
        return pad(p.day);
      case 'HH':
        return pad(p.hours ?? 0);
      case 'mm':
        return pad(p.minutes ?? 0);
      default:
        return pad(p.seconds ?? 0);
    }
  });
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** yyyy-MM-dd of a real calendar day, or null. */
function isoDateParts(text: string): Parts | null {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return { year, month, day };
}

// ---- numbers: the decimal strings of lib/decimal, for the grid and the forms ------------------

export { compareDecimal, formatDecimal, normalizeNumber, parseNumber, PLAIN_DECIMAL, roundDecimal, separators } from '../../lib/decimal';

// ---- the registry --------------------------------------------------------------------------

const empty = (value: unknown) => value === null || value === undefined || value === '';

const text: FieldTypeDef = {
  input: 'text',
  align: 'start',
  format: (value) => (empty(value) ? '' : String(value)),
  parse: (raw, column) => {
    if (raw === '') return { ok: true, value: null };
    if (column.maxLength && [...raw].length > column.maxLength) return { ok: false, error: 'tooLong' };
    return { ok: true, value: raw };
  },
  toInput: (value) => (empty(value) ? '' : String(value)),
};

const int: FieldTypeDef = {
  input: 'number',
  align: 'end',
  // Ids, weeks, priorities and day counts read better without grouping.
  format: (value) => (empty(value) ? '' : String(value)),
  parse: (raw) => {
    const s = raw.replace(/[\s\u00a0\u202f]/g, '');
    if (s === '') return { ok: true, value: null };
    if (!/^-?\d+$/.test(s) || !Number.isSafeInteger(Number(s))) return { ok: false, error: 'notInteger' };
    return { ok: true, value: Number(s) };
  },
  toInput: (value) => (empty(value) ? '' : String(value)),
};

const decimal: FieldTypeDef = {
  input: 'number',
  align: 'end',
  format: (value, column, ctx) => formatDecimal(value, column.scale ?? undefined, ctx.locale),
  parse: (raw, column, locale) => {
    if (raw.trim() === '') return { ok: true, value: null };
    const parsed = parseNumber(raw, locale);
    if (!parsed.ok) return parsed;
    // More decimals than the column holds would be rounded away: refused, as the server does.
    if (column.scale != null && significantDecimals(parsed.value) > column.scale) return { ok: false, error: 'tooManyDecimals' };
    // Sent as an exact string: the server reads it into numeric without a float in between.
    return parsed;
  },
  toInput: (value, _column, locale) => {
    if (empty(value)) return '';
    return toLocaleInput(String(value), locale);
  },
};

const date: FieldTypeDef = {
  input: 'date',
  align: 'start',
  format: (value, _column, ctx) => {
    if (empty(value)) return '';
    const p = isoDateParts(String(value).slice(0, 10));
    return p ? formatParts(p, datePart(ctx.dateFormat)) : String(value);
  },
  parse: (raw) => {
    if (raw.trim() === '') return { ok: true, value: null };
    return isoDateParts(raw) ? { ok: true, value: raw.trim() } : { ok: false, error: 'notDate' };
  },
  toInput: (value) => (empty(value) ? '' : String(value).slice(0, 10)),
};

const datetime: FieldTypeDef = {
  input: 'date',
  align: 'start',
  // A datetime is filtered by calendar day (see filterCondition): exact instants are useless
  // to type, so notEquals and in are left out.
  uiOps: ['equals', 'lt', 'lte', 'gt', 'gte', 'between', 'isEmpty', 'isNotEmpty'],
  format: (value, _column, ctx) => {
    if (empty(value)) return '';
    const d = new Date(String(value));
    if (Number.isNaN(d.getTime())) return String(value);
    return formatParts(
      { year: d.getFullYear(), month: d.getMonth() + 1, day: d.getDate(), hours: d.getHours(), minutes: d.getMinutes(), seconds: d.getSeconds() },
      dateTimeFormat(ctx.dateFormat),
    );
  },
  parse: (raw) => {
    if (raw.trim() === '') return { ok: true, value: null };
    const p = isoDateParts(raw.slice(0, 10));
    if (p && raw.trim().length === 10) return { ok: true, value: new Date(p.year, p.month - 1, p.day).toISOString() };
    const d = new Date(raw);
    return Number.isNaN(d.getTime()) ? { ok: false, error: 'notDate' } : { ok: true, value: d.toISOString() };
  },
  toInput: (value) => {
    if (empty(value)) return '';
    const d = new Date(String(value));
    return Number.isNaN(d.getTime()) ? '' : `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  },
};

const bool: FieldTypeDef = {
  input: 'bool',
  align: 'start',
  format: (value, _column, ctx) => {
    if (empty(value)) return '';
    const yes = value === true || value === 'true';
    return yes ? (ctx.yesNo?.yes ?? 'Yes') : (ctx.yesNo?.no ?? 'No');
  },
  parse: (raw) => {
    if (raw === '') return { ok: true, value: null };
    if (raw === 'true' || raw === 'false') return { ok: true, value: raw === 'true' };
    return { ok: false, error: 'notAllowed' };
  },
  toInput: (value) => (empty(value) ? '' : String(value === true || value === 'true')),
};

const enumType: FieldTypeDef = {
  input: 'enum',
  align: 'start',
  format: (value, column, ctx) => {
    if (empty(value)) return '';
    return ctx.enumLabel ? ctx.enumLabel(column, String(value)) : String(value);
  },
  parse: (raw, column) => {
    if (raw === '') return { ok: true, value: null };
    return !column.values || column.values.includes(raw) ? { ok: true, value: raw } : { ok: false, error: 'notAllowed' };
  },
  toInput: (value) => (empty(value) ? '' : String(value)),
};

export const FIELD_TYPES: Record<FieldTypeName, FieldTypeDef> = {
  text,
  int,
  decimal,
  date,
  datetime,
  bool,
  enum: enumType,
};

export function fieldType(type: FieldTypeName): FieldTypeDef {
  return FIELD_TYPES[type] ?? text;
}

/** A cell's display text. */
export function formatValue(value: unknown, column: ColumnMeta, ctx: FormatContext): string {
  return fieldType(column.type).format(value, column, ctx);
}

export function parseInput(text: string, column: ColumnMeta, locale: string): ParseResult {
  return fieldType(column.type).parse(text, column, locale);
}

export function toInputText(value: unknown, column: ColumnMeta, locale: string): string {
  return fieldType(column.type).toInput(value, column, locale);
}

/** The operators to offer for a column: the server's list, limited by what the UI can input. */
export function filterOps(column: ColumnMeta): FilterOp[] {
  const ui = fieldType(column.type).uiOps;
  return ui ? column.ops.filter((op) => ui.includes(op)) : column.ops;
}

/** Operators that take no value. */
export const NO_VALUE_OPS: ReadonlySet<FilterOp> = new Set(['isEmpty', 'isNotEmpty']);

/** The default operator: contains for text, equals otherwise. */
export function defaultOp(column: ColumnMeta): FilterOp {
  const ops = filterOps(column);
  if (ops.includes('contains')) return 'contains';
  return ops.includes('equals') ? 'equals' : (ops[0] ?? 'equals');
}

/** What the user set in a column's filter: an operator and the typed text (two for between). */
export interface FilterInput {
  op: FilterOp;
  value: string;
  /** The upper bound of between. */
  to?: string;
  /** The chosen values of in for an enum (a multi-select). */
  values?: string[];
}

function endOfDayIso(dateText: string): string | null {
  const p = isoDateParts(dateText);
  return p ? new Date(p.year, p.month - 1, p.day, 23, 59, 59, 999).toISOString() : null;
}

function startOfDayIso(dateText: string): string | null {
  const p = isoDateParts(dateText);
  return p ? new Date(p.year, p.month - 1, p.day).toISOString() : null;
}

/**
 * A column filter as the grid request's condition, or null while it is incomplete or not
 * valid for the type (a half-typed number sends nothing rather than a 400).
 */
export function filterCondition(column: ColumnMeta, input: FilterInput, locale: string): FilterCondition | null {
  const { op } = input;
  const field = column.field;
  if (NO_VALUE_OPS.has(op)) return { field, op };

  if (column.type === 'datetime') {
    // Whole local days: "on 3 March" means from its first to its last millisecond.
    const from = startOfDayIso(input.value);
    const to = endOfDayIso(op === 'between' ? (input.to ?? '') : input.value);
    switch (op) {
      case 'equals':
        return from && to ? { field, op: 'between', value: [from, to] } : null;
      case 'lt':
      case 'gte':
        return from ? { field, op, value: from } : null;
      case 'lte':
      case 'gt':
        return to ? { field, op, value: to } : null;
      case 'between':
        return from && to ? { field, op, value: [from, to] } : null;
      default:
        return null;
    }
  }

  const one = (raw: string): unknown | undefined => {
    if (raw.trim() === '') return undefined;
    const parsed = parseInput(column.type === 'text' ? raw : raw.trim(), column, locale);
    // A filter value may be longer than the column allows (it just matches nothing).
    if (!parsed.ok && parsed.error === 'tooLong') return raw;
    return parsed.ok && parsed.value !== null ? parsed.value : undefined;
  };

  if (op === 'between') {
    const from = one(input.value);
    const to = one(input.to ?? '');
    return from !== undefined && to !== undefined ? { field, op, value: [from, to] } : null;
  }
  if (op === 'in') {
    const raw = input.values ?? input.value.split(',').map((v) => v.trim());
    const values = raw.map((v) => one(v)).filter((v) => v !== undefined);
    return values.length > 0 ? { field, op, value: values } : null;
  }
  const value = one(input.value);
  return value === undefined ? null : { field, op, value };
}

/** Whether an edit changed a value ("1234.5" and "1234.50" are the same amount; '' is null). */
export function sameValue(column: ColumnMeta, a: unknown, b: unknown): boolean {
  const norm = (v: unknown): string => {
    if (v === null || v === undefined || v === '') return '';
    const s = String(v);
    if (column.type === 'decimal' || column.type === 'int') return canonicalDecimal(s) ?? s;
    return s;
  };
  return norm(a) === norm(b);
}
