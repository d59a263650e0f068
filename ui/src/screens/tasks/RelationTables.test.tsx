import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { TransactionTable } from './RelationTables';
import type { TaskTransaction } from './api';

const row = (transactionId: number, match: Partial<TaskTransaction>): TaskTransaction => ({
  transactionId, clientUniqueId: '1234567890100', date: '2026-11-03', acquiringBank: 'A', paymentMethod: 'Visa', currency: 'SEK',
  transactionType: 'Sale', amount: '130.00', isManualAdjust: false, remarks: '', createdBy: 'x', ...match,
});

describe('the transactions sub-table: reconciliation state', () => {
  it("shows each row's match status and rule, and Open without a match", () => {
    render(
      <TransactionTable
        columns={['clientUniqueId', 'amount']}
        transactions={[
          row(1, { matchId: 55, matchStatus: 'matched', matchRule: 'adjustment' }),
          row(2, { matchId: 56, matchStatus: 'partial', matchRule: 'amount' }),
          row(3, { matchId: 57, matchStatus: 'changed', matchRule: null }),
          row(4, { matchId: 58, matchStatus: 'matched', matchRule: 'someNewRule' }),
          row(5, { matchId: null, matchStatus: null, matchRule: null }),
          row(6, {}),
        ]}
      />,
    );
    expect(screen.getByRole('columnheader', { name: 'Match' })).toBeTruthy();
    expect(screen.getByTestId('match-state-1').textContent).toBe('Matched · by adjustment');
    expect(screen.getByTestId('match-state-2').textContent).toBe('Matched within tolerance · within amount tolerance');
    expect(screen.getByTestId('match-state-3').textContent).toBe('Changed since matched');
    expect(screen.getByTestId('match-state-4').textContent).toBe('Matched · someNewRule');
    expect(screen.getByTestId('match-state-5').textContent).toBe('Open');
    expect(screen.getByTestId('match-state-6').textContent).toBe('Open');
    expect(screen.getByTestId('match-state-6').className).toContain('task-subtable__state--open');
  });
});
