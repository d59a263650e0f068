/**
 * The reconciliation API (server/recon.go) as the dashboard calls it, the levels as the server
 * declares them (recon.yaml, GET /recon/levels), and the text of a failed call in the reader's
 * language (the envelope's code, recon.<x>, is the key recon.errors.<x>).
 */
import type { TFunction } from 'i18next';
import { api, apiRequest, ApiError, GENERIC_ERROR, serverMessage, type MessageParams } from '../../api/client';
import type { FieldTypeName, Row, Severity } from '../../engine/types';
import type { DashboardFilters } from './filters';

/** A kind of record reconciliation pairs (a side of recon.yaml: ticket, transaction, ..., bank). */
export type RecordKind = string;
export type Side = 'left' | 'right';

/** A column of a record grid in a dialog: field, type and its label key (recon.fields.<field>). */
export interface RecordColumn {
  field: string;
  type: FieldTypeName;
  /** Its width in px where the type's default would cut it (a payout id) or waste room (a currency). */
  width?: number;
}

/** One side of a level: its kind, the field naming its id in a match body, and the manual dialog's columns. */
export interface LevelSide {
  kind: RecordKind;
  field: string;
  /** Translation key of the kind's name. */
  label: string;
  columns: RecordColumn[];
  /**
   * The dialog column holding the amount matching compares (e.g. SaleAmount), and the one
   * holding its currency: the dialog sums ticked records by them. Absent from an older server.
   */
  amountField?: string;
  currencyField?: string;
  /** The dialog column holding the reference people know a record by (ticket number, payout id). */
  refField?: string;
}

/** A report row field that opens the chain: the record of kind `side` by its id or its reference. */
export interface ChainFrom {
  field: string;
  side: RecordKind;
  by: 'id' | 'ref';
}

/** A level of the legend: a report status value, its label key and its colour. */
export interface LevelStatus {
  value: string;
  label: string;
  severity: Severity;
}

/** A reconciliation level as GET /recon/levels answers it, in tab order. */
export interface LevelDef {
  slug: string;
  /** recon_match.level: the chain's links name their level by it. */
  number: number;
  /** Translation key of the tab. */
  name: string;
  left: LevelSide;
  right: LevelSide;
  reportView: string;
  /** The ticket-only view that replaces the report when a ticket number is filtered, or null. */
  lookupView: string | null;
  /** The side whose grid the manual dialog shows first (the candidates' item1). */
  dialog: Side;
  investigate: boolean;
  details: boolean;
  /** The dashboard filters the level applies beside the dates and currencies: provider, ticket. */
  filters: string[];
  chainFrom: ChainFrom[];
  statuses: LevelStatus[];
  /** Translation key of the hint under the tab. */
  hint: string;
}

/** A level as the server sent it, with the optional lists and flags filled in. */
export function normaliseLevel(raw: LevelDef): LevelDef {
  const side = ({ amountField, currencyField, refField, ...s }: LevelSide): LevelSide => ({
    ...s,
    label: s.label || `recon.kinds.${s.kind}`,
    columns: s.columns ?? [],
    // An empty name is an older server's "none": the dialog then sums nothing itself.
    ...(amountField ? { amountField } : {}),
    ...(currencyField ? { currencyField } : {}),
    ...(refField ? { refField } : {}),
  });
  return {
    ...raw,
    left: side(raw.left),
    right: side(raw.right),
    lookupView: raw.lookupView || null,
    dialog: raw.dialog === 'right' ? 'right' : 'left',
    investigate: !!raw.investigate,
    details: !!raw.details,
    filters: raw.filters ?? [],
    chainFrom: raw.chainFrom ?? [],
    statuses: raw.statuses ?? [],
    hint: raw.hint ?? '',
  };
}

/** The manual dialog's grids in the order shown: the candidates' item1 (the `dialog` side) and item2. */
export function dialogSides(level: LevelDef): { item1: LevelSide; item2: LevelSide } {
  return level.dialog === 'right' ? { item1: level.right, item2: level.left } : { item1: level.left, item2: level.right };
}

/** The level and side a record kind takes part in (a transaction is in two levels). */
export function levelsOf(levels: readonly LevelDef[], kind: RecordKind): Array<{ level: LevelDef; side: Side }> {
  const out: Array<{ level: LevelDef; side: Side }> = [];
  for (const level of levels) {
    if (level.left.kind === kind) out.push({ level, side: 'left' });
    if (level.right.kind === kind) out.push({ level, side: 'right' });
  }
  return out;
}

/** The translation key of a kind's name, as a level declares it. */
export function kindLabel(levels: readonly LevelDef[], kind: RecordKind): string {
  for (const level of levels) {
    if (level.left.kind === kind) return level.left.label;
    if (level.right.kind === kind) return level.right.label;
  }
  return `recon.kinds.${kind}`;
}

/** The kinds of the levels in chain order: each kind where a level first names it. */
export function chainKinds(levels: readonly LevelDef[]): RecordKind[] {
  const out: RecordKind[] = [];
  for (const level of levels) {
    for (const kind of [level.left.kind, level.right.kind]) if (!out.includes(kind)) out.push(kind);
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
  /** A failed run's English text, and its message code and parameters (recon.runCollided, recon.runFailed). */
  error?: string | null;
  errorCode?: string | null;
  errorParams?: MessageParams | null;
}

export interface Candidates {
  item1: Row[];
  item2: Row[];
  item1Total: number;
  item2Total: number;
  limit: number;
}

/**
 * The dialog's ticks, by the level's sides (not item1/item2), for candidates ranked near them:
 * each side whose other side has ticks comes back closest first, its rows carrying NearFields.
 * sumsTo keeps only the records within the level's amount tolerance of what the group lacks
 * (and the ticked ones).
 */
export interface Near extends GroupIds {
  sumsTo?: boolean;
}

/** What a row of a side ranked near the ticks says of itself. */
export interface NearFields {
  /** It shares a reference (ticket number, client id, ...) with a ticked record of the other side. */
  SameReference?: boolean | null;
  /**
   * How far its amount is from what the group still lacks on its side, a JSON number; null when
   * it is in another currency. Shown only, never summed, so a number is exact enough.
   */
  AmountGap?: number | string | null;
}

/** The row comes from a side ranked near the ticks (it carries the ranking's fields). */
export function isRanked(row: Row): boolean {
  return 'AmountGap' in row || 'SameReference' in row;
}

export interface Match {
  id: number;
  /**
   * The first record of each side; a group's every record is in leftIds / rightIds. A write-off
   * (rule writeoff) has no counter-record: that side's id is 0 and its list empty.
   */
  leftId: number;
  rightId: number;
  /** All records of the group (an older server leaves them out; a write-off's other side may be null). */
  leftIds?: number[] | null;
  rightIds?: number[] | null;
  status: string;
  rule: string;
  amountVariance: string | null;
  /** The reason given for a forced match or a write-off, who made it and when (absent from older answers). */
  reason?: string | null;
  createdBy?: string | null;
  createdOn?: string | null;
}

/** The rule of a match that closes records of one side without a counter-record. */
export const WRITEOFF_RULE = 'writeoff';

/** A write-off (POST /recon/{slug}/writeoff): records of one side, none of them live in a match, and why. */
export interface WriteOffRequest {
  side: Side;
  ids: number[];
  reason: string;
}

/** A real record of a chain link or a match: a write-off's missing counter-record is id 0 (or absent). */
export function isRecordRef(ref: ChainRef | null | undefined): ref is ChainRef {
  return !!ref && Number(ref.id) > 0;
}

/** The record ids of a side of a match, without a write-off's placeholder 0. */
export function realIds(ids: readonly number[] | null | undefined): number[] {
  return (ids ?? []).filter((id) => Number(id) > 0);
}

/** The records of a match group, by side: one or more of each. */
export interface GroupIds {
  leftIds: number[];
  rightIds: number[];
}

/** A message the server would answer with (its English text, code and parameters). */
export interface CodedMessage {
  error: string;
  code: string;
  params: MessageParams | null;
}

/** What the server makes of a group before it is matched (POST /recon/{slug}/evaluate). */
export interface GroupEvaluation {
  /** Exact decimal text, e.g. "120.50". */
  leftSum: string;
  rightSum: string;
  /** Null when the side's ticked records are in several currencies. */
  leftCurrency: string | null;
  rightCurrency: string | null;
  /** Left minus right in the left currency; null when it cannot be compared (no rate). */
  variance: string | null;
  dateLagDays: number;
  /** Inside every tolerance of the level for this provider. */
  inside: boolean;
  /** The status the group would get. */
  status: 'matched' | 'partial';
  tolerance: { amount: string | null; days: number | null; currencyPct: string | null };
  /** Why the server would refuse the group without force, or null. */
  refusal: CodedMessage | null;
}

export interface ChainRef {
  kind: RecordKind;
  id: number;
}

/** Where a chain starts: a record by its id, or by the reference people know it by (a payout's key). */
export type ChainStart = ChainRef | { kind: RecordKind; ref: string };

export interface ChainLink {
  level: number | null;
  /** The left (from) and right (to) records; a write-off's missing counter-record is id 0 (or null). */
  from: ChainRef;
  to: ChainRef;
  status: 'matched' | 'partial' | 'investigation' | 'changed' | 'unmatched' | 'member';
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
  /** The kinds in chain order, and each kind's records as its canonical source has them (id, ref, amount, ...). */
  kinds?: RecordKind[];
  records?: Record<RecordKind, Row[] | null>;
  /** The five kinds of the original levels with the field names the cards read (TicketNumber, Date, Amount, ...). */
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
  /** The reference people know the record by (ticket number, payout id); absent from an older server. */
  ref?: string | null;
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
  levels: () => api.get<LevelDef[]>('/recon/levels'),
  providers: () => api.get<NamedValue[]>('/recon/providers'),
  currencies: () => api.get<NamedValue[]>('/recon/currencies'),
  /** 200 with the finished run, or 202 with a queued/running one (poll run()). */
  auto: (slug: string) => api.post<AutoRun>(`/recon/${enc(slug)}/auto`),
  run: (id: number) => api.getQuiet<AutoRun>(`/recon/runs/${id}`),
  /**
   * The dialog's lists. With `near` they are asked again as the user ticks: quiet, the dialog
   * shows its own state, and the screen-wide loader would cover the grids on every tick.
   */
  candidates: (slug: string, filters: Record<string, unknown>, near?: Near) =>
    near
      ? api.postQuiet<Candidates>(`/recon/${enc(slug)}/candidates`, { ...filters, near })
      : api.post<Candidates>(`/recon/${enc(slug)}/candidates`, filters),
  /** A manual match of a group {leftIds, rightIds, investigate?, force?, reason?}. */
  match: (slug: string, body: MatchRequest) => api.post<Match>(`/recon/${enc(slug)}/match`, body),
  /** Records of one side written off without a counter-record: answers the match group it makes (rule writeoff). */
  writeOff: (slug: string, body: WriteOffRequest) => api.post<Match>(`/recon/${enc(slug)}/writeoff`, body),
  /** Sums and tolerance of a group as it is ticked: quiet, the dialog shows its own state. */
  evaluate: (slug: string, ids: GroupIds) => api.postQuiet<GroupEvaluation>(`/recon/${enc(slug)}/evaluate`, ids),
  undo: (slug: string, matchId: number, reason: string) => apiRequest<Match>('DELETE', `/recon/${enc(slug)}/match/${matchId}`, { reason }),
  details: (slug: string, body: Record<string, unknown>) => api.post<{ item1: Row[]; item2: Row[] }>(`/recon/${enc(slug)}/details`, body),
  chain: (start: ChainStart) =>
    'id' in start
      ? api.get<Chain>(`/recon/chain/${enc(start.kind)}/${start.id}`)
      : api.get<Chain>(`/recon/chain/${enc(start.kind)}?ref=${enc(start.ref)}`),
  why: (slug: string, side: Side, id: number) => api.get<Why>(`/recon/${enc(slug)}/why/${side}/${enc(String(id))}`),
  /** The live match of a record with every record of its group (the why answer carries it); quiet: the caller falls back. */
  matchOf: (slug: string, side: Side, id: number) => api.getQuiet<Why>(`/recon/${enc(slug)}/why/${side}/${enc(String(id))}`).then((w) => w.match),
};

export interface MatchRequest extends GroupIds {
  investigate?: boolean;
  force?: boolean;
  reason?: string;
}

/** The level's side a grid of the manual dialog shows: item1 is the level's `dialog` side. */
export function slotSide(level: LevelDef, slot: 'item1' | 'item2'): Side {
  return (slot === 'item1') === (level.dialog === 'left') ? 'left' : 'right';
}

/** The ids of a manual match from the dialog's ticked rows, in the order ticked (item1 is the level's `dialog` side). */
export function matchBody(level: LevelDef, item1: readonly Row[], item2: readonly Row[]): GroupIds {
  const ids = (rows: readonly Row[]) => rows.map((row) => Number(row.id));
  return level.dialog === 'right' ? { leftIds: ids(item2), rightIds: ids(item1) } : { leftIds: ids(item1), rightIds: ids(item2) };
}

/** A number of records of one kind, e.g. the members of one side of a group. */
export interface KindCount {
  kind: RecordKind;
  /** Translation key of the kind's name, as the level declares it. */
  label: string;
  count: number;
}

/**
 * "2 tickets" in the reader's language (recon.kindCount.<kind>, plural by count); a kind
 * without its own counted name reads as "2 × <its name>".
 */
export function kindCountText(t: TFunction, { kind, label, count }: KindCount): string {
  return t(`recon.kindCount.${kind}`, { count, defaultValue: `${count} × ${t(label)}` });
}

/** The filters as the candidate and report calls take them. */
export function filterBody(f: DashboardFilters, params: Record<string, unknown>): Record<string, unknown> {
  return { fromDate: f.fromDate, toDate: f.toDate, currency: f.currency, provider: params.provider ?? [], clientUniqueId: params.clientUniqueId ?? '' };
}

/**
 * A message code with its parameters in the reader's language: recon.<x> as recon.errors.<x>,
 * any other code as serverMessages.<code>; the English text when neither is translated.
 */
export function codeText(t: TFunction, code: string, params: MessageParams | null | undefined, text: string): string {
  const fallback = serverMessage({ code, params, text });
  if (!code.startsWith('recon.')) return fallback;
  return t(`recon.errors.${code.slice('recon.'.length)}`, { ...(params ?? {}), defaultValue: fallback });
}

/**
 * The text of a failed call: the translation of its code when there is one (the server's
 * English as the fallback), else its message, else the fallback key's text.
 */
export function errorText(err: unknown, t: TFunction, fallbackKey: string): string {
  if (err instanceof ApiError && err.code?.startsWith('recon.')) return codeText(t, err.code, err.params, err.text || err.message);
  if (err instanceof Error && err.message && err.message !== GENERIC_ERROR) return err.message;
  return t(fallbackKey);
}

/** Why a run failed, in the reader's language: its code (with the run's id) when it has one, else its English text. */
export function runErrorText(
  run: { runId?: number; error?: string | null; errorCode?: string | null; errorParams?: MessageParams | null },
  t: TFunction,
): string {
  if (run.errorCode) return codeText(t, run.errorCode, { runId: run.runId, ...(run.errorParams ?? {}) }, run.error ?? '');
  return run.error ?? '';
}
