/**
 * Write off the records ticked on one side of the manual dialog: a difference accepted without
 * a counter-record. A small confirmation names how many records and their sum, asks for the
 * reason the server requires, then POST /recon/{level}/writeoff. The server answers the match
 * group it made (rule writeoff), or that the write-off waits for a second user's approval (an
 * info toast, and the dialog closes as after success); a refusal (over the user's limit, no limit at all, several
 * currencies, a record matched meanwhile) keeps the confirmation open with its text.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { ApiError } from '../../api/client';
import type { FormatContext } from '../../engine/fields';
import type { Row } from '../../engine/types';
import { toastIfPending, useToast } from '../../shell/toast';
import { codeText, errorText, kindCountText, reconApi, type LevelSide, type Match, type Side } from './recon';
import { localFigures } from './group';
import { money } from './GroupSummary';
import { useFormatContext } from './RecordGrid';

/** The longest reason a write-off takes (the server's limit, as for a forced match). */
export const WRITEOFF_REASON_MAX = 1000;

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A refused write-off in the reader's language: an over-limit refusal with its amounts written
 * as the dialog writes amounts (in USD); no rate said for a write-off (the limit cannot be
 * weighed), not for a pair; anything else as every recon refusal.
 */
export function writeOffErrorText(err: unknown, t: TFunction, ctx: FormatContext): string {
  if (err instanceof ApiError && err.code === 'recon.noRate') return t('recon.writeoff.noRate');
  if (err instanceof ApiError && err.code === 'recon.writeoffOverLimit') {
    const params: Record<string, unknown> = { ...(err.params ?? {}) };
    for (const name of ['amount', 'limit']) {
      const value = params[name];
      if ((typeof value === 'string' || typeof value === 'number') && PLAIN_DECIMAL.test(String(value))) params[name] = money(String(value), 'USD', ctx);
    }
    return codeText(t, err.code, params, err.text || err.message);
  }
  return errorText(err, t, 'recon.toasts.writeOffFailed');
}

export function WriteOffDialog({
  slug,
  side,
  levelSide,
  rows,
  visible,
  onCancel,
  onWrittenOff,
}: {
  slug: string;
  /** The level's side the records are on. */
  side: Side;
  levelSide: LevelSide;
  rows: readonly Row[];
  visible: boolean;
  onCancel(): void;
  /** The match group made; null when the write-off waits for a second user's approval. */
  onWrittenOff(match: Match | null): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const ctx = useFormatContext();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [reasonRefused, setReasonRefused] = useState(false);

  useEffect(() => {
    if (!visible) return;
    setReason('');
    setTouched(false);
    setFailure(null);
    setReasonRefused(false);
  }, [visible]);

  const figures = localFigures(rows, levelSide);
  const records = kindCountText(t, { kind: levelSide.kind, label: levelSide.label, count: rows.length });
  const sum = figures.mixed ? t('recon.manual.group.mixed') : figures.sum === null ? '–' : money(figures.sum, figures.currency, ctx);
  const missing = reason.trim() === '';
  const invalid = (touched && missing) || reasonRefused;

  const submit = async () => {
    setTouched(true);
    if (missing || busy) return;
    setBusy(true);
    setFailure(null);
    setReasonRefused(false);
    try {
      const match = await reconApi.writeOff(slug, { side, ids: rows.map((row) => Number(row.id)), reason: reason.trim() });
      toast.success(t('recon.toasts.writtenOff', { count: rows.length, id: match.id }));
      onWrittenOff(match);
    } catch (err) {
      if (toastIfPending(toast, err)) {
        onWrittenOff(null);
        return;
      }
      const text = writeOffErrorText(err, t, ctx);
      setFailure(text);
      setReasonRefused(err instanceof ApiError && err.field === 'reason');
      toast.error(text);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      visible={visible}
      onHide={onCancel}
      header={t('recon.writeoff.title')}
      modal
      style={{ width: 'min(480px, 94vw)' }}
      data-testid="writeoff-dialog"
      footer={
        <div className="recon-dialog__footer">
          <Button type="button" severity="warning" icon="pi pi-minus-circle" label={t('recon.writeoff.confirm')} loading={busy} onClick={() => void submit()} data-testid="writeoff-confirm" />
          <Button type="button" text label={t('common.cancel')} disabled={busy} onClick={onCancel} data-testid="writeoff-cancel" />
        </div>
      }
    >
      <p className="recon-undo__question" data-testid="writeoff-question">
        <i className="pi pi-exclamation-triangle" aria-hidden="true" /> {t('recon.writeoff.question', { records })}
      </p>
      <dl className="recon-writeoff__figures">
        <div className="recon-group__sum" data-testid="writeoff-count">
          <dt>{t('recon.writeoff.count')}</dt>
          <dd>{records}</dd>
        </div>
        <div className="recon-group__sum" data-testid="writeoff-sum">
          <dt>{t('recon.writeoff.sum')}</dt>
          <dd>{sum}</dd>
        </div>
      </dl>
      {failure && <Message severity="error" text={failure} className="recon-dialog__message" data-testid="writeoff-failure" />}
      <label htmlFor={reasonId} className="recon-field__label">
        {t('recon.writeoff.reason')} <span className="recon-required">*</span>
      </label>
      <InputTextarea
        id={reasonId}
        value={reason}
        rows={3}
        autoResize
        autoFocus
        maxLength={WRITEOFF_REASON_MAX}
        placeholder={t('recon.writeoff.reasonPlaceholder')}
        aria-required="true"
        invalid={invalid}
        className="w-full"
        onChange={(e) => {
          setReason(e.target.value);
          setReasonRefused(false);
        }}
        data-testid="writeoff-reason"
      />
      {touched && missing && (
        <small className="recon-field__error" role="alert" data-testid="writeoff-reason-error">
          {t('recon.writeoff.reasonRequired')}
        </small>
      )}
    </Dialog>
  );
}
