/**
 * The rules of the task editor that do not need React: the id text fields, the balance and the
 * adjustment defaults (spec 03 sections 2.2, 5), and the name of a task raised from the
 * reconciliation details. The task list is the engine's grid (views.yaml VW_Tasks).
 */
import type { TFunction } from 'i18next';
import { fromCents, toCents } from '../../lib/decimal';

// ---- the editor -----------------------------------------------------------------------------

/** Comma-separated digit-only ids: the ids, or null when any part is not digits. */
export function parseIds(text: string): number[] | null {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) === 0)) return null;
  return parts.map(Number);
}

export function idsText(ids: readonly number[] | null | undefined): string {
  return (ids ?? []).join(', ');
}

export function sumAmounts(amounts: ReadonlyArray<string | number | null | undefined>): string {
  return fromCents(amounts.reduce<bigint>((sum, a) => sum + (toCents(a) ?? 0n), 0n));
}

/** Spec 03 section 5: the balance is the ticket total minus the transaction total, to 2 decimals. */
export function balance(ticketAmounts: ReadonlyArray<string | number>, transactionAmounts: ReadonlyArray<string | number>): string {
  return fromCents((toCents(sumAmounts(ticketAmounts)) ?? 0n) - (toCents(sumAmounts(transactionAmounts)) ?? 0n));
}

/** Today as yyyy-MM-dd in the user's time zone. */
export function todayIso(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export interface AdjustmentDraft {
  ticketId: number | null;
  amount: string;
  date: string;
  currency: string;
  remarks: string;
}

/**
 * The manual adjustment dialog's defaults: the amount is the balance rounded to 2 decimals,
 * the date today, the ticket the only one when there is one, the currency that ticket's (or
 * the tickets' when they share one).
 */
export function adjustmentDefaults(
  tickets: ReadonlyArray<{ ticketId: number; localFareCurrency: string }>,
  balanceAmount: string,
  now: Date = new Date(),
): AdjustmentDraft {
  const only = tickets.length === 1 ? tickets[0] : undefined;
  const cents = toCents(balanceAmount);
  // the currency is the ticket's: known before one is chosen when the tickets share it
  const currencies = new Set(tickets.map((k) => k.localFareCurrency));
  return {
    ticketId: only?.ticketId ?? null,
    amount: cents === null ? '' : fromCents(cents),
    date: todayIso(now),
    currency: only?.localFareCurrency ?? (currencies.size === 1 ? ([...currencies][0] ?? '') : ''),
    remarks: '',
  };
}

/** An amount the server takes: not negative, at most 2 decimals, more than 0. */
export function validAdjustmentAmount(text: string): boolean {
  return /^\d{1,18}(\.\d{1,2})?$/.test(text.trim()) && (toCents(text) ?? 0n) > 0n;
}

/**
 * Spec 03 section 4: the name of a task raised from the reconciliation details, "Reconciliation
 * Review (nT / nX)" in English, in the reader's language otherwise (tasks.autoName). The name is
 * stored as it was proposed: a task keeps the language of the one who raised it.
 */
export function autoTaskName(t: TFunction, tickets: number, transactions: number): string {
  return t('tasks.autoName', { tickets, transactions });
}
