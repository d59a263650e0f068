/**
 * The home figures as GET /home answers them, and the links from a figure to the screen that
 * explains it. A figure the caller's screens do not permit is null.
 */
import type { ImportFile } from '../../api/imports';

export interface Amount {
  count: number;
  /** Exact USD sum, e.g. "1234.50". */
  amount: string;
}

/** The figures of one reconciliation level; the levels come in the dashboard's tab order. */
export interface LevelFigures {
  /** The level's number (recon_match.level), as the other figures name it. */
  level: number;
  slug: string;
  matched: Amount;
  partial: Amount;
  unmatched: Amount;
  /** Matched share in percent, one decimal ("97.5"); null without records. */
  matchRate: string | null;
  /** Records without a USD rate, left out of the amounts. */
  noRate: number;
}

export interface HomeFigures {
  month: string;
  from: string;
  to: string;
  computedAt: string;
  levels?: LevelFigures[] | null;
  /** Per day the unmatched USD amount of each level, in the order of `levels`. */
  unmatchedTrend?: { date: string; levels: string[] }[] | null;
  oldestUnmatched?: { level: number; id: number; date: string; reference: string; amount: string; currency: string | null; ageDays: number }[] | null;
  lastRuns?: {
    level: number;
    runId: number;
    status: string;
    createdBy: string;
    createdOn: string;
    finishedOn: string | null;
    matched: number;
    partial: number;
    leftUnmatched: number;
    rightUnmatched: number;
    /** A failed run's English text, and its message code and parameters. */
    error?: string | null;
    errorCode?: string | null;
    errorParams?: Record<string, unknown> | null;
  }[] | null;
  tasks?: { open: number; byStatus: { status: number; count: number }[]; byAssignee: { userId: number | null; name: string; count: number }[] } | null;
  imports?: ImportFile[] | null;
  bank?: { in: string; out: string; byActor: { actor: string | null; in: string; out: string }[] } | null;
  /** How old the open items of every level are today (not a figure of the month). */
  ageing?: { open: number; overdue: number; buckets: { from: number; to: number | null; count: number }[] } | null;
  /** What went wrong or did not come while nobody looked (runs, intake, expected files), newest first. */
  alerts?: HomeAlert[] | null;
  /** Four-eyes approvals: how many wait for the user's decision, and the user's own requests. */
  approvals?: HomeApprovals | null;
}

export interface HomeApprovals {
  /** Others' requests waiting for a decision; null when the user may not decide (no Approvals screen). */
  waiting: number | null;
  /** The user's own requests: pending, or decided lately, newest first. */
  mine: MyApprovalRequest[] | null;
}

export interface MyApprovalRequest {
  id: number;
  action: string;
  status: 'pending' | 'approved' | 'rejected';
  /** What was asked, in English, and its message code and parameters (shown in the reader's language). */
  what: string;
  whatCode: string;
  whatParams: Record<string, unknown> | null;
  requestedOn: string;
  decidedBy: string | null;
  decidedOn: string | null;
  decisionReason: string | null;
}

/** The tag colour of a request's status. */
export const APPROVAL_SEVERITY: Record<MyApprovalRequest['status'], 'warning' | 'success' | 'danger'> = {
  pending: 'warning',
  approved: 'success',
  rejected: 'danger',
};

/** Whether Home shows the approvals card: to those who decide, and to those who asked lately. */
export function showsApprovals(a: HomeApprovals | null | undefined): a is HomeApprovals {
  return !!a && (a.waiting !== null || (a.mine?.length ?? 0) > 0);
}

export interface HomeAlert {
  id: number;
  kind: 'runFailed' | 'intakeFailed' | 'fileMissing';
  raisedOn: string;
  /** English text, and its message code and parameters (shown in the reader's language). */
  message: string;
  messageCode: string;
  messageParams: Record<string, unknown> | null;
}

export const RECONCILE_PATH = '/dashboard/bank-settlement';
export const TASKS_PATH = '/dashboard/tasks';
export const IMPORTS_PATH = '/dashboard/financialdocument';
export const REPORTS_PATH = '/dashboard/reports';
export const OPEN_ITEMS_PATH = '/dashboard/open-items';
export const APPROVALS_PATH = '/dashboard/approvals';
/** Configuration Settings' tab of the intake schedules: what each last did. */
export const SCHEDULES_PATH = '/dashboard/config-settings?tab=schedules';

/**
 * The exception queue showing the open items of an age bucket (from..to days, to null: from
 * days and older; the first bucket from no lower end, so items dated ahead are in it), or those
 * past their SLA.
 */
export function openItemsLink(bucket: { from: number; to: number | null } | 'overdue'): string {
  const q = new URLSearchParams({ tab: 'openItems' });
  if (bucket === 'overdue') q.set('OverdueDays', '1..');
  else q.set('AgeDays', `${bucket.from === 0 ? '' : bucket.from}..${bucket.to ?? ''}`);
  return `${OPEN_ITEMS_PATH}?${q.toString()}`;
}

/** This month as YYYY-MM (the month input's value). */
export function currentMonth(today: Date = new Date()): string {
  return `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}`;
}

/**
 * The dashboard tab of a level: its place among the levels (the home answer lists them in the
 * dashboard's tab order); the first tab when the level is not among them.
 */
export function tabOf(levels: readonly { level: number }[] | null | undefined, level: number): number {
  const index = levels?.findIndex((l) => l.level === level) ?? -1;
  return index < 0 ? 0 : index;
}

/** A reference the dashboard's ticket-number filter takes (13 digits), else nothing. */
export function ticketFilter(reference: string): string | undefined {
  return /^\d{13}$/.test(reference) ? reference : undefined;
}

/**
 * The reconcile screen on a tab (0-based, as bankSettlementTabIndex keeps it) with the
 * dashboard filters of spec 03 §3.1: fromDate, toDate (yyyy-MM-dd) and a ticket number.
 */
export function reconcileLink(tab: number, fromDate: string, toDate: string, clientUniqueId?: string): string {
  const q = new URLSearchParams({ tab: String(tab), fromDate, toDate });
  if (clientUniqueId) q.set('clientUniqueId', clientUniqueId);
  return `${RECONCILE_PATH}?${q.toString()}`;
}

/** The month's processed bookings of an actor, with the bank overview's default flags. */
export function bankLink(actor: string | null, from: string, to: string): string {
  const q = new URLSearchParams({ tab: 'bankFiles', BookedDate: `${from}..${to}`, DistRvnSettle: 'Yes', AffectsBalance: 'Yes', Actor: actor ?? '' });
  return `/dashboard/csvprocessed?${q.toString()}`;
}
