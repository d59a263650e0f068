import { describe, expect, it } from 'vitest';
import { bankLink, currentMonth, reconcileLink } from './home';

describe('home links', () => {
  it('names this month', () => {
    expect(currentMonth(new Date(2026, 0, 31))).toBe('2026-01');
    expect(currentMonth(new Date(2026, 10, 1))).toBe('2026-11');
  });

  it('opens the reconcile tab of a level with the dashboard filters', () => {
    expect(reconcileLink(1, '2026-03-01', '2026-03-31')).toBe('/dashboard/bank-settlement?tab=0&fromDate=2026-03-01&toDate=2026-03-31');
    expect(reconcileLink(2, '2026-03-04', '2026-03-04', 'C 1')).toBe('/dashboard/bank-settlement?tab=1&fromDate=2026-03-04&toDate=2026-03-04&clientUniqueId=C+1');
  });

  it("opens an actor's bookings of the month", () => {
    const q = new URLSearchParams(bankLink(null, '2026-03-01', '2026-03-31').split('?')[1]);
    expect(Object.fromEntries(q)).toEqual({ tab: 'bankFiles', BookedDate: '2026-03-01..2026-03-31', DistRvnSettle: 'Yes', AffectsBalance: 'Yes', Actor: '' });
  });
});
