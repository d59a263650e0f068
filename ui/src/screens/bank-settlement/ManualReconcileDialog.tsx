/**
 * Manual reconcile of one level (spec 03 sections 2.1, 4, 5 and 8): two single-select grids of
 * the filtered unmatched records, 550px high, the level's `dialog` side first with the columns
 * the level declares, and Reconcile / Investigation (where the level offers it) / Cancel. Both
 * sides must be chosen (issue 12). Success closes the dialog and the tab reloads; a failure keeps
 * it open with the server's text. A pair the server refuses with field `force` (outside a
 * tolerance) can be matched anyway, with a reason the server requires.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { ApiError } from '../../api/client';
import { useToast } from '../../shell/toast';
import type { Row } from '../../engine/types';
import { dialogSides, errorText, matchBody, reconApi, type Candidates, type LevelDef } from './recon';
import { keyOf, RecordGrid } from './RecordGrid';

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
  const reasonId = useId();
  const sides = dialogSides(level);
  const [data, setData] = useState<Candidates | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [item1, setItem1] = useState<Row | null>(null);
  const [item2, setItem2] = useState<Row | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [forceOffer, setForceOffer] = useState<boolean>(false);
  const [reason, setReason] = useState('');
  const [reasonTouched, setReasonTouched] = useState(false);
  const filtersKey = JSON.stringify(filters);

  useEffect(() => {
    if (!visible) return undefined;
    let alive = true;
    setData(null);
    setLoadError(null);
    setItem1(null);
    setItem2(null);
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

  const reasonMissing = reason.trim() === '';
  const submit = async (investigate: boolean, force = false) => {
    if (!item1 || !item2) {
      toast.warn(selectBothText(level, t, i18n.language), t('toast.warning'));
      return;
    }
    if (force) {
      setReasonTouched(true);
      if (reasonMissing) return;
    }
    setBusy(true);
    setFailure(null);
    try {
      await reconApi.match(level.slug, {
        ...matchBody(level, item1, item2),
        ...(investigate ? { investigate: true } : {}),
        ...(force ? { force: true, reason: reason.trim() } : {}),
      });
      toast.success(t('recon.toasts.reconciled'));
      onReconciled();
      onClose();
    } catch (err) {
      const text = errorText(err, t, 'recon.toasts.reconcileFailed');
      setFailure(text);
      // A refusal the user may override (field force), or a forced match still lacking its reason.
      setForceOffer(err instanceof ApiError && (err.field === 'force' || (force && err.field === 'reason')));
      toast.error(text);
    } finally {
      setBusy(false);
    }
  };

  const countText = (shown: number, total: number) =>
    total > shown ? t('recon.manual.countCapped', { shown, total }) : t('recon.manual.count', { count: total });

  const footer = (
    <div className="recon-dialog__footer">
      {forceOffer && (
        <Button type="button" severity="warning" icon="pi pi-exclamation-triangle" label={t('recon.manual.matchAnyway')} disabled={busy} onClick={() => void submit(false, true)} data-testid="manual-force" />
      )}
      <Button type="button" icon="pi pi-check" label={t('recon.manual.reconcile')} loading={busy} onClick={() => void submit(false)} data-testid="manual-reconcile" />
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
      {failure && <Message severity="error" text={failure} className="recon-dialog__message" data-testid="manual-failure" />}
      {forceOffer && (
        <div className="recon-dialog__force" data-testid="manual-force-reason-field">
          <label htmlFor={reasonId} className="recon-field__label">
            {t('recon.manual.forceReason')} <span className="recon-required">*</span>
          </label>
          <InputTextarea
            id={reasonId}
            value={reason}
            rows={2}
            autoResize
            maxLength={FORCE_REASON_MAX}
            placeholder={t('recon.manual.forceReasonPlaceholder')}
            aria-required="true"
            invalid={reasonTouched && reasonMissing}
            className="w-full"
            onChange={(e) => setReason(e.target.value)}
            data-testid="manual-force-reason"
          />
          {reasonTouched && reasonMissing && (
            <small className="recon-field__error" role="alert" data-testid="manual-force-reason-error">
              {t('recon.errors.forceReasonRequired')}
            </small>
          )}
        </div>
      )}
      <div className="recon-dialog__pair">
        {([['item1', item1, setItem1], ['item2', item2, setItem2]] as const).map(([slot, chosen, choose]) => {
          const side = sides[slot];
          const rows = data?.[slot] ?? [];
          const total = data?.[`${slot}Total`] ?? 0;
          return (
            <section key={slot} className="recon-dialog__side">
              <h3 className="recon-dialog__heading">
                {t(side.label)}
                <span className="muted"> · {data ? countText(rows.length, total) : t('grid.loading')}</span>
                {chosen && <span className="recon-dialog__chosen" data-testid={`manual-chosen-${slot}`}>{t('recon.manual.chosen', { id: keyOf(chosen) })}</span>}
              </h3>
              <RecordGrid
                rows={rows}
                columns={side.columns}
                height={MANUAL_GRID_HEIGHT}
                testId={`manual-grid-${slot}`}
                selectedId={chosen ? keyOf(chosen) : undefined}
                onSelect={(row) => {
                  choose(row);
                  setForceOffer(false);
                  setReasonTouched(false);
                }}
              />
            </section>
          );
        })}
      </div>
    </Dialog>
  );
}
