/**
 * The figures of a manual match group while records are ticked: per side how many, the exact
 * sum of their amounts (decimal text added as integers, never floats) and their one currency,
 * and the difference left minus right. Until the server's evaluation answers (or from an older
 * server that declares no amount field) they are summed here; then the server's figures rule.
 */
import type { Row } from '../../engine/types';
import type { GroupEvaluation, LevelDef, LevelSide, Side } from './recon';

/** One side of a group as the dialog shows it. */
export interface SideFigures {
  count: number;
  /** Exact decimal text, or null when it is not known (no amount field, an amount not a number). */
  sum: string | null;
  currency: string | null;
  /** The ticked records are in several currencies: their sum means nothing. */
  mixed: boolean;
}

export interface GroupFigures {
  left: SideFigures;
  right: SideFigures;
  /** Left minus right, in the left side's currency; null when the sides cannot be compared. */
  difference: { amount: string; currency: string | null } | null;
}

interface Exact {
  units: bigint;
  scale: number;
}

const PLAIN_DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

function parseExact(value: unknown): Exact | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const m = PLAIN_DECIMAL.exec(String(value).trim());
  if (!m) return null;
  const fraction = m[3] ?? '';
  const units = BigInt(`${m[2] ?? '0'}${fraction}`);
  return { units: m[1] ? -units : units, scale: fraction.length };
}

function exactText({ units, scale }: Exact): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const cut = digits.length - scale;
  return `${negative ? '-' : ''}${digits.slice(0, cut)}${scale > 0 ? `.${digits.slice(cut)}` : ''}`;
}

/** The exact sum of decimal values ("120.5" + "0.25" = "120.75"); null when one is not a number. */
export function sumDecimals(values: readonly unknown[]): string | null {
  const parsed: Exact[] = [];
  for (const value of values) {
    const exact = parseExact(value);
    if (!exact) return null;
    parsed.push(exact);
  }
  const scale = Math.max(0, ...parsed.map((p) => p.scale));
  const units = parsed.reduce((total, p) => total + p.units * 10n ** BigInt(scale - p.scale), 0n);
  return exactText({ units, scale });
}

/** a minus b, exactly; null when either is not a number. */
export function subtractDecimals(a: string, b: string): string | null {
  const negated = parseExact(b);
  return negated ? sumDecimals([a, exactText({ ...negated, units: -negated.units })]) : null;
}

/** A side's ticked rows summed by the fields the level declares for it. */
export function localFigures(rows: readonly Row[], side: LevelSide): SideFigures {
  const { amountField, currencyField } = side;
  const currencies = new Set(currencyField ? rows.map((row) => String(row[currencyField] ?? '')) : []);
  const mixed = currencies.size > 1;
  const [currency] = currencies;
  return {
    count: rows.length,
    sum: amountField && rows.length > 0 && !mixed ? sumDecimals(rows.map((row) => row[amountField])) : null,
    currency: !mixed && currency ? currency : null,
    mixed,
  };
}

/** The dialog's ticked rows by side of the level (item1 is the level's `dialog` side). */
export function bySide(level: LevelDef, item1: readonly Row[], item2: readonly Row[]): Record<Side, readonly Row[]> {
  return level.dialog === 'right' ? { left: item2, right: item1 } : { left: item1, right: item2 };
}

/**
 * The figures to show: the server's evaluation of exactly these records when it has answered,
 * else the local sums, whose difference is shown only when both sides are in one known currency.
 */
export function groupFigures(level: LevelDef, rows: Record<Side, readonly Row[]>, evaluation: GroupEvaluation | null): GroupFigures {
  if (evaluation) {
    const side = (count: number, sum: string, currency: string | null): SideFigures => ({ count, sum, currency, mixed: currency === null });
    return {
      left: side(rows.left.length, evaluation.leftSum, evaluation.leftCurrency),
      right: side(rows.right.length, evaluation.rightSum, evaluation.rightCurrency),
      difference: evaluation.variance === null ? null : { amount: evaluation.variance, currency: evaluation.leftCurrency },
    };
  }
  const left = localFigures(rows.left, level.left);
  const right = localFigures(rows.right, level.right);
  const comparable = left.sum !== null && right.sum !== null && left.currency !== null && left.currency === right.currency;
  const amount = comparable ? subtractDecimals(left.sum!, right.sum!) : null;
  return { left, right, difference: amount === null ? null : { amount, currency: left.currency } };
}
