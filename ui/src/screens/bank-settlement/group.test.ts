import { describe, expect, it } from 'vitest';
import { groupFigures, localFigures, subtractDecimals, sumDecimals } from './group';
import { testLevel } from './levelFixtures';

describe('group sums', () => {
  it('adds decimal text exactly, whatever the scales', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['1083.22', '-83.2', 17])).toBe('1017.02');
    expect(sumDecimals(['99999999999999999.99', '0.01'])).toBe('100000000000000000.00');
    expect(sumDecimals([])).toBe('0');
    expect(sumDecimals(['12.5', 'abc'])).toBeNull();
    expect(subtractDecimals('400.25', '399.75')).toBe('0.50');
    expect(subtractDecimals('1.00', '-2.5')).toBe('3.50');
    expect(subtractDecimals('250', '250.00')).toBe('0.00');
  });

  it('sums a side by the fields its level names; several currencies or no amount field give no sum', () => {
    const { left, right } = testLevel('ticket-transaction');
    const usd = (id: number, amount: string) => ({ id, SaleAmount: amount, local_fare_currency: 'USD' });
    expect(localFigures([usd(1, '250.00'), usd(3, '150.25')], left)).toEqual({ count: 2, sum: '400.25', currency: 'USD', mixed: false });
    expect(localFigures([usd(1, '250.00'), { id: 4, SaleAmount: '10.00', local_fare_currency: 'SEK' }], left)).toEqual({ count: 2, sum: null, currency: null, mixed: true });
    expect(localFigures([], right)).toEqual({ count: 0, sum: null, currency: null, mixed: false });
    // An older server names no amount field: counted, not summed.
    const old = testLevel('settlement-bank').left;
    expect(localFigures([{ id: 9, SettlementAmount: '1000.00' }], old)).toEqual({ count: 1, sum: null, currency: null, mixed: false });
  });

  it('the difference is left minus right, locally only in one shared currency; the server\'s evaluation replaces it', () => {
    const level = testLevel('ticket-transaction');
    const left = [{ id: 1, SaleAmount: '250.00', local_fare_currency: 'USD' }];
    const right = [{ id: 2, TransactionAmount: '249.00', currency: 'USD' }];
    expect(groupFigures(level, { left, right }, null).difference).toEqual({ amount: '1.00', currency: 'USD' });
    expect(groupFigures(level, { left, right: [{ ...right[0]!, currency: 'EUR' }] }, null).difference).toBeNull();
    const evaluated = groupFigures(
      level,
      { left, right },
      { leftSum: '250.00', rightSum: '2600.00', leftCurrency: 'USD', rightCurrency: 'SEK', variance: '1.20', dateLagDays: 0, inside: true, status: 'matched', tolerance: { amount: null, days: null, currencyPct: '2' }, refusal: null },
    );
    expect(evaluated).toEqual({
      left: { count: 1, sum: '250.00', currency: 'USD', mixed: false },
      right: { count: 1, sum: '2600.00', currency: 'SEK', mixed: false },
      difference: { amount: '1.20', currency: 'USD' },
    });
  });
});
