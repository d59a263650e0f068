import { describe, expect, it } from 'vitest';
import { closedOverlapping, type ClosedPeriod } from './periods';

const closing = (id: number, month: string, level = '', reopenedOn: string | null = null): ClosedPeriod => ({
  id,
  month,
  level,
  closedBy: 'maria',
  closedOn: '2026-11-27T10:00:00Z',
  reopenedBy: reopenedOn ? 'bo' : null,
  reopenedOn,
  reopenReason: reopenedOn ? 'late bookings' : null,
});

describe('closedOverlapping', () => {
  const periods = [
    closing(1, '2026-10'),
    closing(2, '2026-09', 'settlement-bank'),
    closing(3, '2026-09', 'ticket-transaction'),
    closing(4, '2026-08', '', '2026-11-01T00:00:00Z'), // reopened: not closed
    closing(5, '2026-07'),
  ];

  it('keeps the closings in force whose month the days touch, oldest first', () => {
    expect(closedOverlapping(periods, '2026-09-30', '2026-10-01').map((p) => p.id)).toEqual([2, 3, 1]);
    expect(closedOverlapping(periods, '2026-08-01', '2026-08-31')).toEqual([]);
    expect(closedOverlapping(periods, '2026-07-31', '2026-07-31').map((p) => p.id)).toEqual([5]);
    expect(closedOverlapping(periods, '2026-11-01', '2026-11-30')).toEqual([]);
  });

  it('for a level: its own closings and those of every level', () => {
    expect(closedOverlapping(periods, '2026-09-01', '2026-10-31', 'ticket-transaction').map((p) => p.id)).toEqual([3, 1]);
    expect(closedOverlapping(periods, '2026-09-01', '2026-09-30', 'transaction-settlement')).toEqual([]);
  });

  it('says nothing without both days', () => {
    expect(closedOverlapping(periods, '', '2026-10-31')).toEqual([]);
    expect(closedOverlapping(periods, '2026-09-01', '')).toEqual([]);
  });
});
