/**
 * The chain of a record and why it did not match (issue 12 item 7): a side panel showing the
 * kinds of the levels in order (ticket -> transaction -> settlement -> payout -> bank booking)
 * with each record's status at every level its kind takes part in, and for a record left
 * unmatched at a level the closest candidates with the tolerance each one missed. The quickest
 * way from a red row to its cause. A match group (several records on a side, one link from every
 * left member to every right member) reads as one group with its members, not as its links.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Sidebar } from 'primereact/sidebar';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { ProgressBar } from 'primereact/progressbar';
import { formatValue } from '../../engine/fields';
import type { Row } from '../../engine/types';
import {
  chainKinds,
  errorText,
  isRecordRef,
  kindCountText,
  kindLabel,
  levelsOf,
  reconApi,
  type Chain,
  type ChainLink,
  type ChainRef,
  type ChainStart,
  type KindCount,
  type LevelDef,
  type RecordKind,
  type Side,
  type Why,
  type WhyCandidate,
  WRITEOFF_RULE,
} from './recon';
import { useFormatContext } from './RecordGrid';
import { toastIfPending, useToast } from '../../shell/toast';
import type { UndoTarget } from './UndoMatchDialog';

type ChainList = keyof Pick<Chain, 'tickets' | 'transactions' | 'settlements' | 'payouts' | 'bankBookings'>;

/** The named lists of the chain answer, with the field names the cards read; other kinds come from `records`. */
const CHAIN_LISTS: Record<string, ChainList> = {
  ticket: 'tickets',
  transaction: 'transactions',
  settlement: 'settlements',
  payout: 'payouts',
  bank: 'bankBookings',
};

/** The records of a kind in a chain: its named list, else its canonical records, else none. */
export function chainRecords(chain: Chain, kind: RecordKind): Row[] {
  const list = CHAIN_LISTS[kind];
  return (list && chain[list]) || chain.records?.[kind] || [];
}

/** The value of the first of the fields a record has. */
const first = (record: Row, ...fields: string[]): unknown => fields.map((f) => record[f]).find((v) => v !== null && v !== undefined && v !== '');

const LIVE = new Set(['matched', 'partial', 'investigation', 'changed']);

/** The level links of one record: where it is the left (from) or the right (to) side (a write-off lacks one of them). */
export function recordLinks(chain: Chain, kind: RecordKind, id: number): ChainLink[] {
  const is = (ref: ChainRef | null | undefined) => isRecordRef(ref) && ref.kind === kind && ref.id === id;
  return chain.links.filter((l) => is(l.from) || is(l.to));
}

/** Per level the record takes part in: its live match, or none (then "why" can be asked). */
export function levelStates(chain: Chain, levels: readonly LevelDef[], kind: RecordKind, id: number) {
  const links = recordLinks(chain, kind, id);
  return levelsOf(levels, kind).map(({ level, side }) => {
    const live = links.find((l) => l.level === level.number && LIVE.has(l.status));
    return { level, side, link: live ?? null };
  });
}

/**
 * The records of one match: its links' left (from) and right (to) ends, each once, in the links'
 * order. A write-off has no counter-record: that side is empty.
 */
export interface MatchGroup {
  matchId: number;
  left: ChainRef[];
  right: ChainRef[];
}

/** The chain's matches by id, gathered from their links. */
export function matchGroups(links: readonly ChainLink[]): Map<number, MatchGroup> {
  const groups = new Map<number, MatchGroup>();
  const add = (list: ChainRef[], ref: ChainRef | null | undefined) => {
    if (isRecordRef(ref) && !list.some((r) => r.kind === ref.kind && r.id === ref.id)) list.push(ref);
  };
  for (const link of links) {
    if (link.matchId === null) continue;
    let group = groups.get(link.matchId);
    if (!group) {
      group = { matchId: link.matchId, left: [], right: [] };
      groups.set(link.matchId, group);
    }
    add(group.left, link.from);
    add(group.right, link.to);
  }
  return groups;
}

/** A group of more than one record on a side; a one-to-one match is no group to the reader. */
export const isGroup = (group: MatchGroup | undefined): group is MatchGroup => !!group && (group.left.length > 1 || group.right.length > 1);

/** The members named in a group's undo question: the first few, then an ellipsis. */
const MEMBERS_NAMED = 4;

function severityOf(status: string | undefined): 'success' | 'warning' | 'danger' {
  return status === 'matched' ? 'success' : status === 'partial' || status === 'investigation' || status === 'changed' ? 'warning' : 'danger';
}

/** The fields that name a record to people, per kind; any other kind shows its id. */
const RECORD_LABEL: Record<RecordKind, string[]> = {
  ticket: ['TicketNumber'],
  transaction: ['ClientUniqueID'],
  settlement: ['ClientUniqueID', 'PayoutID'],
  payout: ['PayoutID'],
  bank: ['BankAccount'],
};

export function ChainPanel({
  start,
  levels,
  onClose,
  onUndo,
  onMatched,
  reloadToken,
}: {
  start: ChainStart | null;
  /** The levels in tab order: the stages, and each record's levels. */
  levels: readonly LevelDef[];
  onClose(): void;
  onUndo(target: UndoTarget): void;
  /** A candidate was matched from the why list: the grids and this chain reload. */
  onMatched(): void;
  reloadToken: number;
}) {
  const { t, i18n } = useTranslation();
  const ctx = useFormatContext();
  const [chain, setChain] = useState<Chain | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [why, setWhy] = useState<WhyState | null>(null);

  useEffect(() => {
    if (!start) return undefined;
    let alive = true;
    setChain(null);
    setFailure(null);
    setWhy(null);
    reconApi.chain(start).then(
      (answer) => alive && setChain(answer),
      (err: unknown) => alive && setFailure(errorText(err, t, 'recon.toasts.loadFailed')),
    );
    return () => {
      alive = false;
    };
  }, [start, reloadToken, t]);

  const askWhy = (kind: RecordKind, id: number, level: LevelDef, side: Side) => {
    const key = `${kind}-${id}-${level.slug}`;
    if (why?.key === key) {
      setWhy(null);
      return;
    }
    setWhy({ key, id, side, level, data: null, error: null });
    reconApi.why(level.slug, side, id).then(
      (data) => setWhy((w) => (w?.key === key ? { ...w, data } : w)),
      (err: unknown) => setWhy((w) => (w?.key === key ? { ...w, error: errorText(err, t, 'recon.toasts.loadFailed') } : w)),
    );
  };

  const money = (amount: unknown, currency: unknown) =>
    amount === null || amount === undefined ? '' : `${formatValue(amount, { field: 'a', type: 'decimal', label: '', sortable: false, ops: [], scale: 2 }, ctx)} ${currency ? String(currency) : ''}`.trim();
  const date = (value: unknown) => formatValue(value, { field: 'd', type: 'date', label: '', sortable: false, ops: [] }, ctx);

  // The record the chain starts from: as the answer names it (a start by reference gets its id there).
  const origin = chain?.start ?? (start && 'id' in start ? start : null);
  const groups = chain ? matchGroups(chain.links) : new Map<number, MatchGroup>();

  /** How people know a record of the chain: its reference, else its id. */
  const titleOf = (kind: RecordKind, id: number): string => {
    const record = chain ? chainRecords(chain, kind).find((r) => Number(r.id) === id) : undefined;
    return String((record && first(record, ...(RECORD_LABEL[kind] ?? []), 'ref')) ?? `#${id}`);
  };
  const memberName = (m: ChainRef) => `${t(kindLabel(levels, m.kind)).toLocaleLowerCase(i18n.language)} ${titleOf(m.kind, m.id)}`;
  // The members of a side share its kind; a write-off's empty side is of the level's kind.
  const sideCount = (refs: ChainRef[], kind: RecordKind): KindCount => ({ kind: refs[0]?.kind ?? kind, label: kindLabel(levels, refs[0]?.kind ?? kind), count: refs.length });
  const groupText = (level: LevelDef, group: MatchGroup) => {
    const left = sideCount(group.left, level.left.kind);
    const right = sideCount(group.right, level.right.kind);
    // A write-off's group is the records of one side, with no counter-record.
    if (left.count === 0 || right.count === 0) return t('recon.chain.groupOneSide', { records: kindCountText(t, left.count === 0 ? right : left) });
    return t('recon.chain.group', { left: kindCountText(t, left), right: kindCountText(t, right) });
  };

  /** What an undo takes back: the record, or a group's counts and its first members; a write-off says so. */
  const undoTarget = (level: LevelDef, matchId: number, kind: RecordKind, title: string, rule: string): UndoTarget => {
    const group = groups.get(matchId);
    const writeoff = rule === WRITEOFF_RULE ? { writeoff: true } : {};
    if (!isGroup(group)) return { slug: level.slug, matchId, what: `${t(kindLabel(levels, kind))} ${title}`, ...writeoff };
    const members = [...group.left, ...group.right];
    const named = members.slice(0, MEMBERS_NAMED).map(memberName);
    return {
      slug: level.slug,
      matchId,
      what: `${named.join(', ')}${members.length > MEMBERS_NAMED ? ', …' : ''}`,
      group: { left: sideCount(group.left, level.left.kind), right: sideCount(group.right, level.right.kind) },
      ...writeoff,
    };
  };

  const renderCard = (kind: RecordKind, record: Row) => {
    const id = Number(record.id);
    const isStart = origin?.kind === kind && origin.id === id;
    const states = chain ? levelStates(chain, levels, kind, id) : [];
    const worst = states.some((s) => !s.link) ? 'danger' : states.some((s) => s.link && s.link.status !== 'matched') ? 'warning' : 'success';
    const title = titleOf(kind, id);
    const provider = first(record, 'ProviderActor', 'provider');
    return (
      <li key={`${kind}-${id}`} className={`chain-card chain-card--${worst}${isStart ? ' is-start' : ''}`} data-testid={`chain-card-${kind}-${id}`}>
        <div className="chain-card__head">
          <strong>{String(title)}</strong>
          <span className="muted">#{id}</span>
          {isStart && <span className="chain-card__start">{t('recon.chain.start')}</span>}
        </div>
        <div className="chain-card__facts">
          <span>{date(first(record, 'Date', 'date'))}</span>
          <span className="chain-card__amount">{money(first(record, 'Amount', 'amount'), first(record, 'Currency', 'currency'))}</span>
          {provider ? <span>{String(provider)}</span> : null}
          {record.IsManualAdjust ? <span className="chain-card__tag">{t('recon.chain.manualAdjust')}</span> : null}
        </div>
        <ul className="chain-card__levels">
          {states.map(({ level, side, link }) => {
            const group = link?.matchId != null ? groups.get(link.matchId) : undefined;
            return (
              <li key={level.slug} className={`grid-row-status grid-row-status--${severityOf(link?.status)}`} data-testid={`chain-state-${kind}-${id}-${level.number}`}>
                <i className={`pi ${link ? (link.status === 'matched' ? 'pi-check-circle' : 'pi-exclamation-circle') : 'pi-times-circle'}`} aria-hidden="true" />
                <span>
                  {t(level.name)}: {isGroup(group) && <span data-testid={`chain-group-${group.matchId}`}>{groupText(level, group)} · </span>}
                  {t(`recon.status.${link?.status ?? 'unmatched'}`)}
                  {link && (
                    <span className="muted chain-card__rule">
                      {' '}
                      {t(`recon.chain.rules.${link.rule}`, { defaultValue: link.rule })}
                      {link.amountVariance && Number(link.amountVariance) !== 0 ? ` · ${t('recon.chain.variance', { value: money(link.amountVariance, '') })}` : ''}
                      {link.dateLagDays ? ` · ${t('recon.chain.lag', { count: link.dateLagDays })}` : ''}
                      {link.createdBy ? ` · ${link.createdBy}` : ''}
                    </span>
                  )}
                  {isGroup(group) && (
                    <span className="muted chain-card__members" data-testid={`chain-group-members-${group.matchId}`}>
                      {[...group.left, ...group.right].map(memberName).join(', ')}
                    </span>
                  )}
                </span>
                {link?.matchId != null && (
                  <button type="button" className="link-button" data-testid={`chain-undo-${kind}-${id}-${level.number}`} onClick={() => onUndo(undoTarget(level, link.matchId!, kind, title, link.rule))}>
                    {t('recon.chain.undo')}
                  </button>
                )}
                {!link && (
                  <button type="button" className="link-button" data-testid={`chain-why-${kind}-${id}-${level.number}`} onClick={() => askWhy(kind, id, level, side)}>
                    {t('recon.why.ask')}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
        {why && why.key.startsWith(`${kind}-${id}-`) && <WhyView why={why} money={money} date={date} onMatched={onMatched} />}
      </li>
    );
  };

  return (
    <Sidebar visible={start !== null} position="right" onHide={onClose} className="chain-panel" data-testid="chain-panel" header={<h2 className="chain-panel__title">{start ? t('recon.chain.title', { kind: t(kindLabel(levels, start.kind)), id: origin?.id ?? ('ref' in start ? start.ref : '') }) : ''}</h2>}>
      {!chain && !failure && <ProgressBar mode="indeterminate" className="grid-progress" />}
      {failure && <Message severity="error" text={failure} />}
      {chain && (
        <ol className="chain-stages">
          {(chain.kinds?.length ? chain.kinds : chainKinds(levels)).map((kind) => {
            const records = chainRecords(chain, kind);
            return (
              <li key={kind} className="chain-stage" data-testid={`chain-stage-${kind}`}>
                <h3 className="chain-stage__title">
                  {t(kindLabel(levels, kind))} <span className="muted">({records.length})</span>
                </h3>
                {records.length === 0 ? <p className="muted chain-stage__none">{t('recon.chain.none')}</p> : <ul className="chain-cards">{records.map((r) => renderCard(kind, r))}</ul>}
              </li>
            );
          })}
        </ol>
      )}
      {chain?.truncated && <Message severity="info" text={t('recon.chain.truncated')} />}
      <div className="chain-panel__footer">
        <Button type="button" text label={t('common.close')} onClick={onClose} data-testid="chain-close" />
      </div>
    </Sidebar>
  );
}

/** The translated reasons one candidate missed, with the numbers that decide. */
export function reasonTexts(c: WhyCandidate, t: (key: string, o?: Record<string, unknown>) => string, money: (v: unknown, cur: unknown) => string): string[] {
  return c.reasons.map((reason) => {
    switch (reason) {
      case 'amount':
        return t('recon.why.reasons.amount', { difference: money(c.amountDifference, ''), tolerance: money(c.amountTolerance, ''), missed: money(c.amountMissedBy, '') });
      case 'date':
        return t('recon.why.reasons.date', { lag: c.dateLagDays ?? '', tolerance: c.dateTolerance ?? '', missed: c.dateMissedBy ?? '' });
      case 'currency':
        return t('recon.why.reasons.currency', { percent: c.differencePercent ?? '', tolerance: c.currencyTolerance ?? '', missed: c.currencyMissedBy ?? '' });
      default:
        return t(`recon.why.reasons.${reason}`);
    }
  });
}

interface WhyState {
  key: string;
  /** The record asked about and its side at the level. */
  id: number;
  side: Side;
  level: LevelDef;
  data: Why | null;
  error: string | null;
}

function WhyView({ why, money, date, onMatched }: { why: WhyState; money: (v: unknown, c: unknown) => string; date: (v: unknown) => string; onMatched(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [busy, setBusy] = useState<number | null>(null);
  // A candidate matched by hand from here: the record asked about on its side, the candidate on the other.
  const matchWith = async (candidate: number) => {
    const [leftId, rightId] = why.side === 'left' ? [why.id, candidate] : [candidate, why.id];
    setBusy(candidate);
    try {
      await reconApi.match(why.level.slug, { leftIds: [leftId], rightIds: [rightId] });
      toast.success(t('recon.toasts.reconciled'));
      onMatched();
    } catch (err) {
      if (!toastIfPending(toast, err)) toast.error(errorText(err, t, 'recon.toasts.reconcileFailed'));
    } finally {
      setBusy(null);
    }
  };
  if (why.error) return <Message severity="error" text={why.error} />;
  if (!why.data) return <ProgressBar mode="indeterminate" className="grid-progress" />;
  const candidates = why.data.candidates ?? [];
  return (
    <div className="chain-why" data-testid="chain-why">
      <h4 className="chain-why__title">{t('recon.why.title', { level: t(why.level.name) })}</h4>
      {candidates.length === 0 ? (
        <p className="muted" data-testid="chain-why-none">{t('recon.why.none')}</p>
      ) : (
        <table className="chain-why__table">
          <thead>
            <tr>
              <th>{t('recon.why.candidate')}</th>
              <th>{t('recon.why.amount')}</th>
              <th>{t('recon.why.date')}</th>
              <th>{t('recon.why.missed')}</th>
            </tr>
          </thead>
          <tbody>
            {candidates.map((c) => {
              const reasons = reasonTexts(c, t, money);
              return (
                <tr key={c.id} data-testid={`chain-why-candidate-${c.id}`}>
                  <td>
                    {c.ref ? c.ref : `#${c.id}`}
                    {c.provider ? <div className="muted">{c.provider}</div> : null}
                  </td>
                  <td className="grid-cell--number">{money(c.amount, c.currency)}</td>
                  <td>{date(c.date)}</td>
                  <td>
                    <button type="button" className="link-button chain-why__match" disabled={busy !== null || c.matchedElsewhere} onClick={() => void matchWith(c.id)} data-testid={`chain-why-match-${c.id}`}>
                      {t('recon.why.match')}
                    </button>
                    {reasons.length === 0 ? (
                      <span className="chain-why__reason chain-why__reason--ok">{t('recon.why.withinTolerance')}</span>
                    ) : (
                      reasons.map((r) => (
                        <span key={r} className="chain-why__reason">
                          {r}
                        </span>
                      ))
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
