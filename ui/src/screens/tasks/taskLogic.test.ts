import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { adjustmentDefaults, autoTaskName, balance, parseIds, sumAmounts, validAdjustmentAmount } from './taskLogic';

describe('editor', () => {
  it('reads comma-separated digit-only ids', () => {
    expect(parseIds(' 12, 7 ,3 ')).toEqual([12, 7, 3]);
    expect(parseIds('')).toEqual([]);
    expect(parseIds('1,2a')).toBeNull();
    expect(parseIds('1.5')).toBeNull();
    expect(parseIds('-4')).toBeNull();
    expect(parseIds('0')).toBeNull();
  });

  it('balances exactly: ticket total minus transaction total', () => {
    expect(balance(['100.00', '50.00'], ['90.00', '40.00'])).toBe('20.00');
    expect(balance(['0.10', '0.20'], ['0.30'])).toBe('0.00'); // no float drift
    expect(balance([], ['12.5'])).toBe('-12.50');
    expect(sumAmounts(['1.005', '2'])).toBe('3.01');
  });

  it('defaults the adjustment to the balance rounded to 2 decimals, today, and the only ticket', () => {
    const now = new Date(2026, 10, 24, 15, 30);
    const one = adjustmentDefaults([{ ticketId: 7, localFareCurrency: 'SEK' }], '20.005', now);
    expect(one).toEqual({ ticketId: 7, amount: '20.01', date: '2026-11-24', currency: 'SEK', remarks: '' });
    const two = adjustmentDefaults(
      [
        { ticketId: 7, localFareCurrency: 'SEK' },
        { ticketId: 8, localFareCurrency: 'SEK' },
      ],
      '-3.4',
      now,
    );
    expect(two.ticketId).toBeNull();
    // two tickets of one currency: the currency is known before a ticket is chosen
    expect(two.currency).toBe('SEK');
    expect(two.amount).toBe('-3.40');
    const mixed = adjustmentDefaults(
      [
        { ticketId: 7, localFareCurrency: 'SEK' },
        { ticketId: 8, localFareCurrency: 'EUR' },
      ],
      '1',
      now,
    );
    expect(mixed.ticketId).toBeNull();
    expect(mixed.currency).toBe('');
  });

  it('accepts only positive amounts of at most 2 decimals', () => {
    expect(validAdjustmentAmount('20')).toBe(true);
    expect(validAdjustmentAmount('20.5')).toBe(true);
    expect(validAdjustmentAmount('20.55')).toBe(true);
    expect(validAdjustmentAmount('20.555')).toBe(false);
    expect(validAdjustmentAmount('-1')).toBe(false);
    expect(validAdjustmentAmount('0')).toBe(false);
    expect(validAdjustmentAmount('abc')).toBe(false);
  });

  // First user, second round, item 14: the generated name was English in every language.
  it('names a task raised from the reconciliation details after its counts, in the language', async () => {
    expect(autoTaskName(i18n.t, 2, 3)).toBe('Reconciliation Review (2T / 3X)');
    await i18n.changeLanguage('sv');
    expect(autoTaskName(i18n.t, 2, 3)).toBe('Avstämningsgranskning (2 bilj. / 3 trans.)');
    await i18n.changeLanguage('en');
  });
});
