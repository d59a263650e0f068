import { describe, expect, it } from 'vitest';
import { bankLink, currentMonth, openItemsLink, reconcileLink, tabOf, ticketFilter } from './home';

describe('home links', () => {
  it('names this month', () => {
    expect(currentMonth(new Date(2026, 0, 31))).toBe('2026-01');
    expect(currentMonth(new Date(2026, 10, 1))).toBe('2026-11');
  });

  it('opens a reconcile tab with the dashboard filters', () => {
    expect(reconcileLink(0, '2026-03-01', '2026-03-31')).toBe('/dashboard/bank-settlement?tab=0&fromDate=2026-03-01&toDate=2026-03-31');
    expect(reconcileLink(1, '2026-03-04', '2026-03-04', 'C 1')).toBe('/dashboard/bank-settlement?tab=1&fromDate=2026-03-04&toDate=2026-03-04&clientUniqueId=C+1');
  });

  it("finds a level's tab by its place among the levels, and passes only ticket numbers to the ticket filter", () => {
    const levels = [{ level: 1 }, { level: 2 }, { level: 3 }, { level: 4 }];
    expect(tabOf(levels, 1)).toBe(0);
    expect(tabOf(levels, 4)).toBe(3);
    expect(tabOf([{ level: 4 }, { level: 1 }], 1)).toBe(1);
    expect(tabOf(levels, 9)).toBe(0);
    expect(tabOf(null, 2)).toBe(0);
    expect(ticketFilter('1254400000001')).toBe('1254400000001');
    expect(ticketFilter('PO-NUVEI-20261101-SEK')).toBeUndefined();
  });

  it("opens an actor's bookings of the month", () => {
    const q = new URLSearchParams(bankLink(null, '2026-03-01', '2026-03-31').split('?')[1]);
    expect(Object.fromEntries(q)).toEqual({ tab: 'bankFiles', BookedDate: '2026-03-01..2026-03-31', DistRvnSettle: 'Yes', AffectsBalance: 'Yes', Actor: '' });
  });
});

describe('openItemsLink', () => {
  it('opens the queue on an age bucket, open below for the first and above for the last, or on what is past its SLA', () => {
    expect(openItemsLink({ from: 0, to: 2 })).toBe('/dashboard/open-items?tab=openItems&AgeDays=..2');
    expect(openItemsLink({ from: 3, to: 7 })).toBe('/dashboard/open-items?tab=openItems&AgeDays=3..7');
    expect(openItemsLink({ from: 31, to: null })).toBe('/dashboard/open-items?tab=openItems&AgeDays=31..');
    expect(openItemsLink('overdue')).toBe('/dashboard/open-items?tab=openItems&OverdueDays=1..');
  });
});
