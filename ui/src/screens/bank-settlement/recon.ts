/**
 * The reconciliation API (server/recon.go) as the dashboard calls it, the three levels with the
 * record columns of spec 03 sections 3.3 and 3.4, and the text of a failed call in the reader's
 * language (the envelope's code, recon.<x>, is the key recon.errors.<x>).
 */
import type { TFunction } from 'i18next';
import { api, apiRequest, ApiError, GENERIC_ERROR } from '../../api/client';
import type { FieldTypeName, Row } from '../../engine/types';
import type { DashboardFilters, TabIndex } from './filters';

export type LevelSlug = 'ticket-transaction' | 'transaction-settlement' | 'settlement-bank';
export type RecordKind = 'ticket' | 'transaction' | 'settlement' | 'payout' | 'bank';

/** A column of a record grid in a dialog: field, type and its label key (recon.fields.<field>). */
export interface RecordColumn {
  field: string;
  type: FieldTypeName;
}

export interface LevelDef {
  tab: TabIndex;
  slug: LevelSlug;
  view: string;
  /** Translation key of the tab. */
  title: string;
  /** The kinds on the match's left and right. */
  left: RecordKind;
  right: RecordKind;
  /** The manual dialog's grids in the order shown: candidates item1 and item2. */
  item1: { kind: RecordKind; columns: RecordColumn[] };
  item2: { kind: RecordKind; columns: RecordColumn[] };
}

const c = (field: string, type: FieldTypeName = 'text'): RecordColumn => ({ field, type });

const transactionColumns = [c('id', 'int'), c('ClientUniqueID'), c('ProcessingDate', 'date'), c('AcquiringBank'), c('PaymentMethod'),
  c('currency'), c('TransactionAmount', 'decimal'), c('TransactionType'), c('ProviderActor')];

export const LEVELS: readonly LevelDef[] = [
  {
    tab: 0,
    slug: 'ticket-transaction',
    view: 'VW_ReconTicketTransaction',
    title: 'recon.tabs.ticketTransaction',
    left: 'ticket',
    right: 'transaction',
    item1: { kind: 'ticket', columns: [c('id', 'int'), c('ticket_number'), c('trans_date', 'date'), c('local_fare_currency'), c('transaction_code'), c('SaleAmount', 'decimal')] },
    item2: { kind: 'transaction', columns: transactionColumns },
  },
  {
    tab: 1,
    slug: 'transaction-settlement',
    view: 'VW_ReconTransactionSettlement',
    title: 'recon.tabs.transactionSettlement',
    left: 'transaction',
    right: 'settlement',
    item1: { kind: 'transaction', columns: transactionColumns.filter((col) => col.field !== 'PaymentMethod') },
    item2: {
      kind: 'settlement',
      columns: [c('id', 'int'), c('ClientUniqueID'), c('SettlementDate', 'date'), c('AcquirerBank'), c('SettlementCurrency'), c('SettlementNet', 'decimal'), c('PayoutID'), c('ProviderActor')],
    },
  },
  {
    tab: 2,
    slug: 'settlement-bank',
    view: 'VW_ReconSettlementBank',
    title: 'recon.tabs.settlementBank',
    left: 'payout',
    right: 'bank',
    // Spec 2.1: "two single-select grids (settlement and bank)"; the API answers bank first.
    item1: { kind: 'bank', columns: [c('BankAccount'), c('ReconciliationAmountLocal', 'decimal'), c('Charges', 'decimal'), c('Currency'), c('BookedDate', 'date'), c('ProviderActor'), c('Text')] },
    item2: { kind: 'payout', columns: [c('PayoutID'), c('SettlementAmount', 'decimal'), c('SettlementCurrency'), c('SettlementSummaryDate', 'date'), c('ProviderActor'), c('SettlementCount', 'int')] },
  },
];

export const TICKET_LOOKUP_VIEW = 'VW_ReconTicketLookup';

/** The level and side a record kind takes part in (a transaction is in two levels). */
export function levelsOf(kind: RecordKind): Array<{ level: LevelDef; side: 'left' | 'right' }> {
  const out: Array<{ level: LevelDef; side: 'left' | 'right' }> = [];
  for (const level of LEVELS) {
    if (level.left === kind) out.push({ level, side: 'left' });
    if (level.right === kind) out.push({ level, side: 'right' });
  }
  return out;
}

export interface AutoRun {
  runId: number;
  level: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  matched: number;
  partial: number;
  unmatched: number;
  leftUnmatched: number;
  rightUnmatched: number;
  seconds: number;
  error?: string;
}

export interface Candidates {
  item1: Row[];
  item2: Row[];
  item1Total: number;
  item2Total: number;
  limit: number;
}

export interface Match {
  id: number;
  leftId: number;
  rightId: number;
  status: string;
  rule: string;
  amountVariance: string | null;
}

export interface ChainRef {
  kind: RecordKind;
  id: number;
}

export interface ChainLink {
  level: number | null;
  from: ChainRef;
  to: ChainRef;
  status: 'matched' | 'partial' | 'investigation' | 'unmatched' | 'member';
  rule: string;
  amountVariance: string | null;
  dateLagDays: number | null;
  matchId: number | null;
  runId: number | null;
  createdBy: string | null;
  createdOn: string | null;
}

export interface Chain {
  start: ChainRef;
  tickets: Row[];
  transactions: Row[];
  settlements: Row[];
  payouts: Row[];
  bankBookings: Row[];
  links: ChainLink[];
  truncated: boolean;
}

export type WhyReason = 'key' | 'provider' | 'amount' | 'date' | 'noCurrencyTolerance' | 'noRate' | 'currency' | 'matchedElsewhere' | 'undoneByUser';

export interface WhyCandidate {
  id: number;
  amount: string | number | null;
  currency: string | null;
  date: string | null;
  provider: string | null;
  keyMatches: boolean;
  providerMatches: boolean;
  amountDifference: string | number | null;
  amountTolerance: string | number | null;
  amountMissedBy: string | number | null;
  dateLagDays: number | null;
  dateTolerance: number | null;
  dateMissedBy: number | null;
  currencyDiffers: boolean;
  differencePercent: string | number | null;
  currencyTolerance: string | number | null;
  currencyMissedBy: string | number | null;
  matchedElsewhere: boolean;
  undoneByUser: boolean;
  reasons: WhyReason[];
}

export interface Why {
  record: Row | null;
  match: Match | null;
  candidates: WhyCandidate[];
}

export interface NamedValue {
  Id: number;
  Code?: string;
  TransProvider?: string;
}

const enc = encodeURIComponent;

export const reconApi = {
  providers: () => api.get<NamedValue[]>('/recon/providers'),
  currencies: () => api.get<NamedValue[]>('/recon/currencies'),
  /** 200 with the finished run, or 202 with a queued/running one (poll run()). */
  auto: (slug: LevelSlug) => api.post<AutoRun>(`/recon/${slug}/auto`),
  run: (id: number) => api.getQuiet<AutoRun>(`/recon/runs/${id}`),
  candidates: (slug: LevelSlug, filters: Record<string, unknown>) => api.post<Candidates>(`/recon/${slug}/candidates`, filters),
  match: (slug: LevelSlug, body: Record<string, unknown>, investigate: boolean) =>
    api.post<Match>(`/recon/${slug}/${investigate ? 'investigate' : 'match'}`, body),
  undo: (slug: LevelSlug, matchId: number, reason: string) => apiRequest<Match>('DELETE', `/recon/${slug}/match/${matchId}`, { reason }),
  details: (slug: LevelSlug, body: Record<string, unknown>) => api.post<{ item1: Row[]; item2: Row[] }>(`/recon/${slug}/details`, body),
  chain: (kind: RecordKind, id: number) => api.get<Chain>(`/recon/chain/${kind}/${id}`),
  why: (slug: LevelSlug, side: 'left' | 'right', id: number) => api.get<Why>(`/recon/${slug}/why/${side}/${enc(String(id))}`),
};

/** The body of a manual match of the level from the two chosen rows (spec 03 section 7.1). */
export function matchBody(level: LevelDef, item1: Row, item2: Row): Record<string, unknown> {
  switch (level.tab) {
    case 0:
      return { ticketId: item1.id, transactionId: item2.id };
    case 1:
      return { transactionId: item1.id, settlementId: item2.id };
    default:
      return { settlement: item2, bank: item1 };
  }
}

/** The filters as the candidate and report calls take them. */
export function filterBody(f: DashboardFilters, params: Record<string, unknown>): Record<string, unknown> {
  return { fromDate: f.fromDate, toDate: f.toDate, currency: f.currency, provider: params.provider ?? [], clientUniqueId: params.clientUniqueId ?? '' };
}

/**
 * The text of a failed call: the translation of its code when there is one (the server's
 * English as the fallback), else its message, else the fallback key's text.
 */
export function errorText(err: unknown, t: TFunction, fallbackKey: string): string {
  if (err instanceof ApiError && err.code?.startsWith('recon.')) {
    const key = `recon.errors.${err.code.slice('recon.'.length)}`;
    return t(key, { ...(err.params ?? {}), defaultValue: err.message });
  }
  if (err instanceof Error && err.message && err.message !== GENERIC_ERROR) return err.message;
  return t(fallbackKey);
}
