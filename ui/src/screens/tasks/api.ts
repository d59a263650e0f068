/** The TaskTT calls of spec 03 section 7.2 that the task editor makes. */
import { api, apiRequest } from '../../api/client';

export interface Task {
  id: number;
  taskName: string;
  assignedToId: number | null;
  assignedToName: string | null;
  isStatus: number;
  statusLabel: string;
  remarks: string | null;
  priority: number | null;
  createdBy: string;
  createdOn: string;
  updatedBy?: string;
  updatedOn: string;
  totalAmount: string;
  balance: string;
  ticketCount?: number;
  transactionCount?: number;
  ticketIds?: number[];
  transactionIds?: number[];
  /** The settlements, payouts and bank bookings the task follows (the exception queue's Assign, SLA escalation). */
  records?: TaskRecord[] | null;
}

/** A settlement, payout or bank booking a task follows, by the reference people know it by. */
export interface TaskRecord {
  kind: 'settlement' | 'payout' | 'bank';
  id: number;
  ref: string | null;
}

export interface TaskTicket {
  ticketId: number;
  ticketNumber: string;
  transDate: string;
  paymentType: string;
  countryCode: string;
  localFareCurrency: string;
  transactionCode: string;
  totalFareIncludesFee: string;
}

export interface TaskTransaction {
  transactionId: number;
  clientUniqueId: string;
  date: string;
  acquiringBank: string;
  paymentMethod: string;
  currency: string;
  transactionType: string;
  amount: string;
  isManualAdjust: boolean;
  remarks: string;
  createdBy: string;
  /**
   * The transaction's live match at the tickets-vs-transactions level; null (or absent, from an
   * older server) while it is open.
   */
  matchId?: number | null;
  /** matched, partial, investigation or changed (recon.status.*). */
  matchStatus?: string | null;
  /** How it was matched: adjustment, manual, exact, forced, ... (recon.chain.rules.*). */
  matchRule?: string | null;
}

/** The match group a ticket's adjustment closed it with (the part of it the editor reads). */
export interface ClosingMatch {
  id: number;
  status: string;
  rule: string;
  leftIds: number[];
  rightIds: number[];
  amountVariance: string | null;
}

/** What an adjustment did to its ticket's reconciliation (the manual-adjust answer only). */
export interface Closing {
  /** true: the ticket is now matched by adjustment (match); false: it stays open. */
  closed: boolean;
  match?: ClosingMatch;
  /** What still differs (ticket minus transactions and adjustments, in the ticket's currency); null when unknown. */
  difference: string | null;
  /** The accepted amount difference; null when there is none (the amounts must be equal). */
  tolerance: string | null;
}

/** The manual-adjust answer: the adjustment, with what it did to its ticket. */
export interface AdjustmentResult extends TaskTransaction {
  closing?: Closing | null;
}

export interface Relations {
  tickets: TaskTicket[];
  transactions: TaskTransaction[];
  ticketCount: number;
  transactionCount: number;
  ticketTotal: string;
  transactionTotal: string;
  balance: string;
  records?: TaskRecord[] | null;
}

export interface TaskInput {
  taskName: string;
  assignedToId: number | null;
  isStatus: number;
  remarks: string;
  priority?: number | null;
  ticketIds?: number[];
  transactionIds?: number[];
  updatedOn?: string;
}

export interface AdjustmentInput {
  ticketNumber: string;
  ticketId: number;
  amount: string;
  date: string;
  currency: string;
  remarks: string;
}

export interface HistoryEntry {
  at: string;
  actor: string;
  action: string;
  before: unknown;
  after: unknown;
}

/** A user of the assignee dropdown (spec 03 section 3.5: id, userId or UserId; a display name). */
export interface UserOption {
  id?: number;
  userId?: number;
  UserId?: number;
  username?: string;
  userName?: string;
  firstName?: string;
  lastName?: string;
}

export function userId(u: UserOption): number | null {
  return u.userId ?? u.id ?? u.UserId ?? null;
}

/** userName, username, or first name plus last name; 'User' when it has none. */
export function userName(u: UserOption): string {
  const full = [u.firstName, u.lastName].filter(Boolean).join(' ').trim();
  return full || u.userName || u.username || 'User';
}

export const tasksApi = {
  get: (id: number) => api.get<Task>(`/TaskTT/${id}`),
  create: (input: TaskInput) => api.post<Task>('/TaskTT/with-items', input),
  update: (id: number, input: TaskInput) => api.put<Task>(`/TaskTT/${id}`, input),
  relations: (id: number) => apiRequest<Relations>('GET', `/TaskTT/${id}/relations`, undefined, { quiet: true }),
  /** The tickets and transactions carrying a ticket number (needs the Reconcile screen too: else 403). */
  candidates: (ticketNumber: string) =>
    apiRequest<Relations>('GET', `/TaskTT/candidates?ticketNumber=${encodeURIComponent(ticketNumber)}`, undefined, { quiet: true }),
  history: (id: number) => apiRequest<HistoryEntry[]>('GET', `/TaskTT/${id}/history`, undefined, { quiet: true }),
  addAdjustment: (id: number, input: AdjustmentInput) => api.post<AdjustmentResult>(`/TaskTT/${id}/manual-adjust`, input),
  deleteAdjustment: (id: number, transactionId: number) => api.delete<void>(`/TaskTT/${id}/manual-adjust/${transactionId}`),
  users: () => api.getQuiet<UserOption[]>('/Users/list'),
};
