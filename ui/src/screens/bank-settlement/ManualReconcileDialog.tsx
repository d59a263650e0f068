/**
 * Manual reconcile of one level (spec 03 sections 2.1, 4, 5 and 8): two multi-select grids of
 * the filtered unmatched records, 550px high, the level's `dialog` side first with the columns
 * the level declares, and Reconcile / Investigation (where the level offers it) / Cancel. The
 * records ticked form one match group: one or more of each side (issue 12 needs both sides).
 * Under the grids run the sums of what is ticked and the server's evaluation of the group.
 * Success closes the dialog and the tab reloads; a failure keeps it open with the server's text.
 * A group the server would refuse without force (its evaluation says so, or the match call is
 * refused with field `force`) can be matched anyway, with a reason the server requires.
 * Records ticked on one side only (none on the other) can be written off instead: a difference
 * accepted without a counter-record, confirmed with a reason in a small dialog (WriteOffDialog);
 * it then closes like a match.
 *
 * Above the grids two switches rank the lists near the ticks: "Closest first" and "Sums to the
 * difference" (only with something ticked). Either on, with ticks, asks the candidates again with
 * them (`near`) once the ticking pauses, and the lists follow the server's order; both off show
 * the first, plain lists again. The lists never re-order while both are off, so no row moves
 * under the pointer unasked. Ticks are kept by id across lists, and a ticked record a list
 * lacks (left out by sumsTo, or beyond the limit) is listed first, so it stays ticked, summed
 * and can be unticked.
 */
import { useEffect, useId, useMemo, useRef, useState, type ReactNode, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { InputSwitch } from 'primereact/inputswitch';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { ApiError } from '../../api/client';
import { toastIfPending, useToast } from '../../shell/toast';
import type { Row } from '../../engine/types';
import { dialogSides, errorText, isRanked, matchBody, reconApi, slotSide, type Candidates, type LevelDef, type LevelSide, type Near } from './recon';
import { keyOf, RecordGrid } from './RecordGrid';
import { GroupSummary } from './GroupSummary';
import { EVALUATE_DELAY_MS, useGroupEvaluation } from './useGroupEvaluation';
import { WriteOffDialog } from './WriteOffDialog';

export const MANUAL_GRID_HEIGHT = 550;
/** The longest reason a forced match takes (the server's limit). */
export const FORCE_REASON_MAX = 1000;

/**
 * The warning when a side is not chosen: the spec's words for the levels it names
 * (recon.toasts.selectBoth.<slug>), else one built from the sides' names.
 */
export function selectBothText(level: LevelDef, t: TFunction, language?: string): string {
  const { item1, item2 } = dialogSides(level);
  const name = (label: string) => t(label).toLocaleLowerCase(language);
  return t(`recon.toasts.selectBoth.${level.slug}`, {
    defaultValue: t('recon.toasts.selectBothGeneric', { left: name(item1.label), right: name(item2.label) }),
  });
}

type Slot = 'item1' | 'item2';
type Picked = Record<Slot, Row[]>;
const NOTHING_PICKED: Picked = { item1: [], item2: [] };

/** The rows ticked after a click on `row`: added last (the first ticked stays first), or taken out. */
export function toggled(rows: readonly Row[], row: Row): Row[] {
  const key = keyOf(row);
  return rows.some((r) => keyOf(r) === key) ? rows.filter((r) => keyOf(r) !== key) : [...rows, row];
}

/** A side's rows as listed: the ticked ones the list lacks first, then the list in its order. */
export function withTicked(rows: readonly Row[], picked: readonly Row[]): Row[] {
  const listed = new Set(rows.map(keyOf));
  const missing = picked.filter((row) => !listed.has(keyOf(row)));
  return missing.length === 0 ? (rows as Row[]) : [...missing, ...rows];
}

/** The candidates ranked near the ticks: nothing asked (off), being asked, or the answer. */
export type Ranked =
  | { state: 'off' }
  /** `data` is the last ranked answer, still shown until this one comes (null: the plain lists). */
  | { state: 'pending'; data: Candidates | null }
  | { state: 'done'; data: Candidates }
  | { state: 'failed'; error: unknown; data: Candidates | null };

/**
 * The candidates of the level ranked near `near` (null: not ranking), asked once the ticking has
 * paused for EVALUATE_DELAY_MS like the evaluation. Only the answer for the ticks of now counts;
 * until it comes the last ranked lists stay, so the rows move once, not on every click.
 */
export function useRankedCandidates(slug: string, filtersKey: string, near: Near | null): Ranked {
  const key = near ? JSON.stringify({ slug, filtersKey, near }) : null;
  const [answer, setAnswer] = useState<{ key: string; data: Candidates | null; error?: unknown } | null>(null);

  useEffect(() => {
    if (key === null) {
      // Ranking off: a later ranking starts from the plain lists, not from this one's last answer.
      setAnswer(null);
      return undefined;
    }
    let current = true;
    const asked = JSON.parse(key) as { slug: string; filtersKey: string; near: Near };
    const timer = setTimeout(() => {
      reconApi.candidates(asked.slug, JSON.parse(asked.filtersKey) as Record<string, unknown>, asked.near).then(
        (data) => current && setAnswer({ key, data }),
        (error: unknown) => current && setAnswer((last) => ({ key, data: last?.data ?? null, error })),
      );
    }, EVALUATE_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key]);

  if (key === null) return { state: 'off' };
  if (answer?.key !== key) return { state: 'pending', data: answer?.data ?? null };
  if ('error' in answer) return { state: 'failed', error: answer.error, data: answer.data };
  return { state: 'done', data: answer.data! };
}

/** The group refusals a reason overrides, whether or not the server names field `force` with them. */
const FORCEABLE_CODES = new Set(['recon.groupOutsideTolerance', 'recon.groupMixedCurrencies']);

/** A refused match the user may force: a forceable refusal, or a forced match still lacking its reason. */
function offersForce(err: unknown, forced: boolean): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.field === 'force' || FORCEABLE_CODES.has(err.code ?? '') || (forced && err.field === 'reason');
}

export function ManualReconcileDialog({
  level,
  filters,
  visible,
  onClose,
  onReconciled,
}: {
  level: LevelDef;
  /** The applied filters as the candidates call takes them. */
  filters: Record<string, unknown>;
  visible: boolean;
  onClose(): void;
  onReconciled(): void;
}) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const sides = dialogSides(level);
  const [data, setData] = useState<Candidates | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [picked, setPicked] = useState<Picked>(NOTHING_PICKED);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [forceOffer, setForceOffer] = useState<boolean>(false);
  const [reason, setReason] = useState('');
  const [reasonTouched, setReasonTouched] = useState(false);
  const [closest, setClosest] = useState(false);
  const [sumsTo, setSumsTo] = useState(false);
  const [writeOffOpen, setWriteOffOpen] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const filtersKey = JSON.stringify(filters);
  const ids = matchBody(level, picked.item1, picked.item2);
  const evaluation = useGroupEvaluation(level.slug, ids, visible);
  const anyTicked = picked.item1.length > 0 || picked.item2.length > 0;
  // A write-off takes the records of exactly one side, none ticked on the other.
  const writeOffSlot: Slot | null = picked.item1.length > 0 && picked.item2.length === 0 ? 'item1' : picked.item2.length > 0 && picked.item1.length === 0 ? 'item2' : null;
  const near: Near | null = visible && anyTicked && (closest || sumsTo) ? { ...ids, ...(sumsTo ? { sumsTo: true } : {}) } : null;
  const ranked = useRankedCandidates(level.slug, filtersKey, near);
  const shown = ranked.state === 'off' ? data : (ranked.data ?? data);
  // Sums to the difference left a side ranked against the other's ticks with nothing but its own ticks.
  const noneWithin =
    sumsTo &&
    ranked.state === 'done' &&
    (['item1', 'item2'] as const).some((slot) => {
      const mine = new Set(picked[slot].map(keyOf));
      return picked[slot === 'item1' ? 'item2' : 'item1'].length > 0 && ranked.data[slot].every((row) => mine.has(keyOf(row)));
    });
  // The server would refuse the group without force: Reconcile becomes Match anyway, with a reason.
  const forceNeeded = forceOffer || (evaluation.state === 'done' && evaluation.data.refusal !== null);

  useEffect(() => {
    if (!visible) return undefined;
    let alive = true;
    setData(null);
    setLoadError(null);
    setPicked(NOTHING_PICKED);
    setFailure(null);
    setForceOffer(false);
    setReason('');
    setReasonTouched(false);
    setClosest(false);
    setSumsTo(false);
    setWriteOffOpen(false);
    reconApi.candidates(level.slug, JSON.parse(filtersKey) as Record<string, unknown>).then(
      (answer) => alive && setData(answer),
      (err: unknown) => {
        if (!alive) return;
        const text = errorText(err, t, 'recon.toasts.loadFailed');
        setLoadError(text);
        toast.error(text);
      },
    );
    return () => {
      alive = false;
    };
  }, [visible, level.slug, filtersKey, t, toast]);

  // "Sums to the difference" means nothing without a tick: it goes off with the last one.
  useEffect(() => {
    if (!anyTicked) setSumsTo(false);
  }, [anyTicked]);

  const toggle = (slot: Slot, row: Row) => {
    setPicked((p) => ({ ...p, [slot]: toggled(p[slot], row) }));
    setForceOffer(false);
    setReasonTouched(false);
  };

  const reasonMissing = reason.trim() === '';
  const submit = async (investigate: boolean, force = false) => {
    if (picked.item1.length === 0 || picked.item2.length === 0) {
      toast.warn(selectBothText(level, t, i18n.language), t('toast.warning'));
      return;
    }
    if (force) {
      setReasonTouched(true);
      if (reasonMissing) {
        // The field sits under the grids: bring it into view.
        reasonRef.current?.focus();
        return;
      }
    }
    setBusy(true);
    setFailure(null);
    try {
      await reconApi.match(level.slug, {
        ...matchBody(level, picked.item1, picked.item2),
        ...(investigate ? { investigate: true } : {}),
        ...(force ? { force: true, reason: reason.trim() } : {}),
      });
      toast.success(t('recon.toasts.reconciled'));
      onReconciled();
      onClose();
    } catch (err) {
      // Kept for a second user's approval: done here, as after a match.
      if (toastIfPending(toast, err)) {
        onReconciled();
        onClose();
        return;
      }
      const text = errorText(err, t, 'recon.toasts.reconcileFailed');
      setFailure(text);
      setForceOffer(offersForce(err, force));
      toast.error(text);
    } finally {
      setBusy(false);
    }
  };

  const footer = (
    <div className="recon-dialog__footer">
      {forceNeeded ? (
        <Button type="button" severity="warning" icon="pi pi-exclamation-triangle" label={t('recon.manual.matchAnyway')} loading={busy} onClick={() => void submit(false, true)} data-testid="manual-force" />
      ) : (
        <Button type="button" icon="pi pi-check" label={t('recon.manual.reconcile')} loading={busy} onClick={() => void submit(false)} data-testid="manual-reconcile" />
      )}
      {level.investigate && (
        <Button type="button" outlined icon="pi pi-search" label={t('recon.manual.investigation')} disabled={busy} onClick={() => void submit(true)} data-testid="manual-investigate" />
      )}
      <Button
        type="button"
        outlined
        severity="warning"
        icon="pi pi-minus-circle"
        label={t('recon.writeoff.button')}
        disabled={busy || writeOffSlot === null}
        tooltip={writeOffSlot === null ? t('recon.writeoff.needsOneSide') : t('recon.writeoff.hint')}
        tooltipOptions={{ showOnDisabled: true }}
        onClick={() => setWriteOffOpen(true)}
        data-testid="manual-writeoff"
      />
      <Button type="button" text label={t('common.cancel')} onClick={onClose} data-testid="manual-cancel" />
    </div>
  );

  return (
    <>
      <Dialog
        visible={visible}
        onHide={onClose}
        header={t('recon.manual.title', { level: t(level.name) })}
        footer={footer}
        maximizable
        dismissableMask
        modal
        style={{ width: 'min(1500px, 96vw)' }}
        data-testid="manual-dialog"
      >
        {loadError && <Message severity="error" text={loadError} className="recon-dialog__message" />}
        <NearToolbar closest={closest} sumsTo={sumsTo} anyTicked={anyTicked} ranked={ranked} noneWithin={noneWithin} onClosest={setClosest} onSumsTo={setSumsTo} />
        <div className="recon-dialog__pair">
          {(['item1', 'item2'] as const).map((slot) => (
            <PickSide
              key={slot}
              slot={slot}
              side={sides[slot]}
              rows={shown?.[slot] ?? null}
              total={shown?.[`${slot}Total`] ?? 0}
              picked={picked[slot]}
              sumsTo={sumsTo}
              onToggle={(row) => toggle(slot, row)}
            />
          ))}
        </div>
        <GroupSummary level={level} item1={picked.item1} item2={picked.item2} evaluation={evaluation} />
        {(failure || forceNeeded) && (
          <div className="recon-dialog__after">
            {failure && <Message severity="error" text={failure} className="recon-dialog__message" data-testid="manual-failure" />}
            {forceNeeded && <ForceReason reason={reason} invalid={reasonTouched && reasonMissing} onChange={setReason} inputRef={reasonRef} />}
          </div>
        )}
      </Dialog>
      {writeOffSlot && (
        <WriteOffDialog
          slug={level.slug}
          side={slotSide(level, writeOffSlot)}
          levelSide={sides[writeOffSlot]}
          rows={picked[writeOffSlot]}
          visible={visible && writeOffOpen}
          onCancel={() => setWriteOffOpen(false)}
          onWrittenOff={() => {
            setWriteOffOpen(false);
            onReconciled();
            onClose();
          }}
        />
      )}
    </>
  );
}

/** The two switches that rank the lists near the ticks, and how the ranking stands. */
function NearToolbar({
  closest,
  sumsTo,
  anyTicked,
  ranked,
  noneWithin,
  onClosest,
  onSumsTo,
}: {
  closest: boolean;
  sumsTo: boolean;
  anyTicked: boolean;
  ranked: Ranked;
  /** A list narrowed by sumsTo kept nothing to add: said, not left as an empty grid. */
  noneWithin: boolean;
  onClosest(on: boolean): void;
  onSumsTo(on: boolean): void;
}) {
  const { t } = useTranslation();
  const closestId = useId();
  const sumsToId = useId();
  let status: ReactNode = null;
  if (ranked.state === 'pending') status = <span className="muted">{t('recon.manual.near.ranking')}</span>;
  else if (ranked.state === 'failed') status = <span className="recon-dialog__near-failed">{errorText(ranked.error, t, 'recon.manual.near.failed')}</span>;
  else if (noneWithin) status = <span className="muted">{t('recon.manual.near.noneWithin')}</span>;
  else if (ranked.state === 'off' && closest && !anyTicked) status = <span className="muted">{t('recon.manual.near.tickFirst')}</span>;
  return (
    <div className="recon-dialog__toolbar" data-testid="manual-near">
      <span className="recon-dialog__switch">
        <InputSwitch inputId={closestId} checked={closest} onChange={(e) => onClosest(!!e.value)} data-testid="manual-closest" />
        <label htmlFor={closestId}>{t('recon.manual.near.closest')}</label>
      </span>
      <span className="recon-dialog__switch" title={anyTicked ? undefined : t('recon.manual.near.sumsToNeedsTick')}>
        <InputSwitch inputId={sumsToId} checked={sumsTo} disabled={!anyTicked} onChange={(e) => onSumsTo(!!e.value)} data-testid="manual-sums-to" />
        <label htmlFor={sumsToId} className={anyTicked ? undefined : 'muted'}>
          {t('recon.manual.near.sumsTo')}
        </label>
      </span>
      <span className="recon-dialog__near-state" role="status" data-testid="manual-near-state" data-state={ranked.state}>
        {status}
      </span>
    </div>
  );
}

/** One side's grid with its name, its count, and what is ticked in it. */
/** How people know a record: its reference where the level shows one (a ticket number), else its id. */
export function referenceOf(side: LevelSide, row: Row): string {
  const ref = side.refField ? row[side.refField] : undefined;
  return ref === undefined || ref === null || ref === '' ? keyOf(row) : String(ref);
}

function PickSide({
  slot,
  side,
  rows,
  total,
  picked,
  sumsTo,
  onToggle,
}: {
  slot: Slot;
  side: LevelSide;
  rows: Row[] | null;
  total: number;
  picked: readonly Row[];
  sumsTo: boolean;
  onToggle(row: Row): void;
}) {
  const { t } = useTranslation();
  const selectedIds = useMemo(() => new Set(picked.map(keyOf)), [picked]);
  const listed = useMemo(() => withTicked(rows ?? [], picked), [rows, picked]);
  // The side came back ranked (its other side has ticks): the grid shows the markers.
  const isRankedSide = useMemo(() => (rows ?? []).some(isRanked), [rows]);
  const ranking = useMemo(() => (isRankedSide ? { sumsTo } : undefined), [isRankedSide, sumsTo]);
  const count = rows === null ? t('grid.loading') : total > rows.length ? t('recon.manual.countCapped', { shown: rows.length, total }) : t('recon.manual.count', { count: total });
  const [first] = picked;
  return (
    <section className="recon-dialog__side">
      <h3 className="recon-dialog__heading">
        {t(side.label)}
        <span className="muted"> · {count}</span>
        {first && (
          <span className="recon-dialog__chosen" data-testid={`manual-chosen-${slot}`}>
            {picked.length === 1 ? t('recon.manual.chosen', { id: referenceOf(side, first) }) : t('recon.manual.chosenMany', { count: picked.length })}
          </span>
        )}
      </h3>
      <RecordGrid
        rows={listed}
        columns={side.columns}
        height={MANUAL_GRID_HEIGHT}
        testId={`manual-grid-${slot}`}
        selectedIds={selectedIds}
        onToggle={onToggle}
        ranked={ranking}
      />
    </section>
  );
}

/** The reason a forced match needs (the server requires one and keeps it with the match). */
function ForceReason({ reason, invalid, onChange, inputRef }: { reason: string; invalid: boolean; onChange(reason: string): void; inputRef: Ref<HTMLTextAreaElement> }) {
  const { t } = useTranslation();
  const reasonId = useId();
  return (
    <div className="recon-dialog__force" data-testid="manual-force-reason-field">
      <label htmlFor={reasonId} className="recon-field__label">
        {t('recon.manual.forceReason')} <span className="recon-required">*</span>
      </label>
      <InputTextarea
        ref={inputRef}
        id={reasonId}
        value={reason}
        rows={2}
        autoResize
        maxLength={FORCE_REASON_MAX}
        placeholder={t('recon.manual.forceReasonPlaceholder')}
        aria-required="true"
        invalid={invalid}
        className="w-full"
        onChange={(e) => onChange(e.target.value)}
        data-testid="manual-force-reason"
      />
      {invalid && (
        <small className="recon-field__error" role="alert" data-testid="manual-force-reason-error">
          {t('recon.errors.forceReasonRequired')}
        </small>
      )}
    </div>
  );
}
