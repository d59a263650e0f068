/**
 * Undo a match (issue 12 item 6): a confirmation that asks for the required reason, then
 * DELETE /recon/{level}/match/{id}. Undoing a group takes every record of it back to unmatched,
 * so the question counts them by kind. A failure keeps the dialog open with the server's text.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { toastIfPending, useToast } from '../../shell/toast';
import { errorText, kindCountText, reconApi, type KindCount } from './recon';

export interface UndoTarget {
  slug: string;
  matchId: number;
  /** What is unmatched, for the question (e.g. "ticket 1234567890123", or a group's first members). */
  what: string;
  /** The records of a group per side, when the match is one (more than one record on a side). */
  group?: { left: KindCount; right: KindCount };
  /** The match is a write-off (rule writeoff): records of one side without a counter-record. */
  writeoff?: boolean;
}

/** "Undo the match of ticket 1254400000001?", or of "2 tickets and 1 transaction (ticket ..., ...)?". */
export function undoQuestion(target: UndoTarget, t: TFunction): string {
  const { group } = target;
  // A write-off, or a group with a side empty (only a write-off has one), names the one side it holds.
  if (target.writeoff || (group && (group.left.count === 0 || group.right.count === 0))) {
    const side = group && (group.left.count === 0 ? group.right : group.left);
    if (!side || side.count <= 1) return t('recon.undo.writeoffQuestion', { what: target.what });
    return t('recon.undo.writeoffGroupQuestion', { records: kindCountText(t, side), what: target.what });
  }
  if (!group || (group.left.count <= 1 && group.right.count <= 1)) return t('recon.undo.question', { what: target.what });
  return t('recon.undo.groupQuestion', { left: kindCountText(t, group.left), right: kindCountText(t, group.right), what: target.what });
}

export function UndoMatchDialog({ target, onClose, onUndone }: { target: UndoTarget | null; onClose(): void; onUndone(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    setReason('');
    setTouched(false);
    setFailure(null);
  }, [target]);

  const missing = reason.trim() === '';
  const submit = async () => {
    setTouched(true);
    if (!target || missing) return;
    setBusy(true);
    setFailure(null);
    try {
      await reconApi.undo(target.slug, target.matchId, reason.trim());
      toast.success(t('recon.toasts.undone'));
      onUndone();
      onClose();
    } catch (err) {
      // Kept for a second user's approval (an old match): nothing more to do here.
      if (toastIfPending(toast, err)) {
        onClose();
        return;
      }
      const text = errorText(err, t, 'recon.toasts.undoFailed');
      setFailure(text);
      toast.error(text);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      visible={target !== null}
      onHide={onClose}
      header={t('recon.undo.title')}
      modal
      style={{ width: 'min(480px, 94vw)' }}
      data-testid="undo-dialog"
      footer={
        <div className="recon-dialog__footer">
          <Button type="button" severity="danger" icon="pi pi-undo" label={t('recon.undo.confirm')} loading={busy} onClick={() => void submit()} data-testid="undo-confirm" />
          <Button type="button" text label={t('common.cancel')} onClick={onClose} data-testid="undo-cancel" />
        </div>
      }
    >
      <p className="recon-undo__question">
        <i className="pi pi-exclamation-triangle" aria-hidden="true" /> {target ? undoQuestion(target, t) : ''}
      </p>
      {/* The record is named by its reference; the match's id stays, small, for whoever quotes it. */}
      {target && (
        <p className="recon-undo__id muted" data-testid="undo-match-id">
          {t('recon.undo.matchId', { id: target.matchId })}
        </p>
      )}
      {failure && <Message severity="error" text={failure} className="recon-dialog__message" />}
      <label htmlFor="undo-reason" className="recon-field__label">
        {t('recon.undo.reason')} <span className="recon-required">*</span>
      </label>
      <InputTextarea
        id="undo-reason"
        value={reason}
        rows={3}
        autoResize
        maxLength={500}
        className={`w-full${touched && missing ? ' p-invalid' : ''}`}
        onChange={(e) => setReason(e.target.value)}
        data-testid="undo-reason"
      />
      {touched && missing && <small className="recon-field__error">{t('recon.undo.reasonRequired')}</small>}
    </Dialog>
  );
}
