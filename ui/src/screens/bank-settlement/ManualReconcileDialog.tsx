/**
 * Manual reconcile of one level (spec 03 sections 2.1, 4, 5 and 8): two multi-select grids of
 * the filtered unmatched records, 550px high, the level's `dialog` side first with the columns
 * the level declares, and Reconcile / Investigation (where the level offers it) / Cancel. The
 * records ticked form one match group: one or more of each side (issue 12 needs both sides).
 * Under the grids run the sums of what is ticked and the server's evaluation of the group.
 * Success closes the dialog and the tab reloads; a failure keeps it open with the server's text.
 * A group the server would refuse without force (its evaluation says so, or the match call is
 * refused with field `force`) can be matched anyway, with a reason the server requires.
 */
import { useEffect, useId, useMemo, useRef, useState, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { ApiError } from '../../api/client';
import { useToast } from '../../shell/toast';
import type { Row } from '../../engine/types';
import { dialogSides, errorText, matchBody, reconApi, type Candidates, type LevelDef, type LevelSide } from './recon';
import { keyOf, RecordGrid } from './RecordGrid';
import { GroupSummary } from './GroupSummary';
import { useGroupEvaluation } from './useGroupEvaluation';

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
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const filtersKey = JSON.stringify(filters);
  const evaluation = useGroupEvaluation(level.slug, matchBody(level, picked.item1, picked.item2), visible);
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
      <Button type="button" text label={t('common.cancel')} onClick={onClose} data-testid="manual-cancel" />
    </div>
  );

  return (
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
      <div className="recon-dialog__pair">
        {(['item1', 'item2'] as const).map((slot) => (
          <PickSide
            key={slot}
            slot={slot}
            side={sides[slot]}
            rows={data?.[slot] ?? null}
            total={data?.[`${slot}Total`] ?? 0}
            picked={picked[slot]}
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
  );
}

/** One side's grid with its name, its count, and what is ticked in it. */
function PickSide({ slot, side, rows, total, picked, onToggle }: { slot: Slot; side: LevelSide; rows: Row[] | null; total: number; picked: readonly Row[]; onToggle(row: Row): void }) {
  const { t } = useTranslation();
  const selectedIds = useMemo(() => new Set(picked.map(keyOf)), [picked]);
  const count = rows === null ? t('grid.loading') : total > rows.length ? t('recon.manual.countCapped', { shown: rows.length, total }) : t('recon.manual.count', { count: total });
  const [first] = picked;
  return (
    <section className="recon-dialog__side">
      <h3 className="recon-dialog__heading">
        {t(side.label)}
        <span className="muted"> · {count}</span>
        {first && (
          <span className="recon-dialog__chosen" data-testid={`manual-chosen-${slot}`}>
            {picked.length === 1 ? t('recon.manual.chosen', { id: keyOf(first) }) : t('recon.manual.chosenMany', { count: picked.length })}
          </span>
        )}
      </h3>
      <RecordGrid rows={rows ?? []} columns={side.columns} height={MANUAL_GRID_HEIGHT} testId={`manual-grid-${slot}`} selectedIds={selectedIds} onToggle={onToggle} />
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
