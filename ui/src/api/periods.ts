/**
 * Closed periods (GET /periods, screens 13, 15 or 17): the months a controller closed, for
 * every level or one, and the closings reopened since. The reports say when what they show
 * lies in a closed month; whoever may not read the list (403) or meets a failure sees no note.
 */
import { useEffect, useState } from 'react';
import { api } from './client';

export interface ClosedPeriod {
  id: number;
  /** yyyy-mm */
  month: string;
  /** The level's slug; empty: every level. */
  level: string;
  closedBy: string;
  closedOn: string;
  reopenedBy: string | null;
  reopenedOn: string | null;
  reopenReason: string | null;
}

/** Every closing on record, read once per screen; none while loading or when it cannot be read. */
export function useClosedPeriods(): ClosedPeriod[] {
  const [periods, setPeriods] = useState<ClosedPeriod[]>([]);
  useEffect(() => {
    let live = true;
    api
      .getQuiet<ClosedPeriod[]>('/periods')
      .then((list) => live && setPeriods(list ?? []))
      .catch(() => {
        // a note the user may not read (403) or that failed to load is left out
      });
    return () => {
      live = false;
    };
  }, []);
  return periods;
}

/**
 * The closings still in force (not reopened) whose month overlaps the days from..to (yyyy-mm-dd,
 * both included), oldest month first; with a level (slug), those of that level and of every
 * level. None without both days.
 */
export function closedOverlapping(periods: readonly ClosedPeriod[], from: string, to: string, level?: string): ClosedPeriod[] {
  if (!from || !to) return [];
  const first = from.slice(0, 7);
  const last = to.slice(0, 7);
  return periods
    .filter((p) => !p.reopenedOn && p.month >= first && p.month <= last && (level === undefined || p.level === '' || p.level === level))
    .sort((a, b) => a.month.localeCompare(b.month) || a.level.localeCompare(b.level));
}
