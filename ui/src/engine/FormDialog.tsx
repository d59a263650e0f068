/**
 * The add dialog of a grid, built from a form's metadata: a PrimeReact Dialog of the form's
 * width whose body is an @rjsf form. The rjsf part (and ajv) is loaded lazily on first open,
 * so it stays out of the start-up bundle (UI-STACK.md: about 180 kB gzipped saved).
 *
 * Save: validate (required fields -> the required-fields toast; a form with saveWhenValid keeps
 * Save disabled until its data is valid), apply the transforms, POST
 * to the form's resource; success closes the dialog and tells the grid to go back to its first
 * page, and so does an answer that the record waits for a second user's approval (an info
 * toast); a failure keeps the dialog open with the server's message and marks its field.
 */
import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { ProgressBar } from 'primereact/progressbar';
import { ApiError } from '../api/client';
import { toastIfPending, useToast } from '../shell/toast';
import { engineApi } from './api';
import { applyTransforms, cleanRecord } from './formSchema';
import { useFormMeta } from './useMeta';
import type { Row } from './types';

const RjsfForm = lazy(() => import('./RjsfForm'));

export interface FormDialogProps {
  formName: string;
  visible: boolean;
  onClose(): void;
  /** Called with the created record after a successful save ({} when it waits for a second user's approval). */
  onSaved(record: Row): void;
}

export function FormDialog({ formName, visible, onClose, onSaved }: FormDialogProps) {
  const { t } = useTranslation();
  const toast = useToast();
  // Asked for as soon as the grid shows, so the dialog opens with its fields at once.
  const { form, error } = useFormMeta(formName);
  const [submitting, setSubmitting] = useState(false);
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [valid, setValid] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);
  const onValidity = useCallback((ok: boolean, fields: string[]) => {
    setValid(ok);
    setProblems(fields);
  }, []);
  // A new form each time the dialog opens: closing resets whatever was typed.
  const [session, setSession] = useState(0);
  const wasVisible = useRef(visible);
  if (visible && !wasVisible.current) setSession((n) => n + 1);
  wasVisible.current = visible;
  const formId = `form-${formName}-${session}`;

  const submit = async (data: Row) => {
    if (!form || submitting) return;
    setSubmitting(true);
    setFieldError(null);
    try {
      const record = await engineApi.create(form.resource, cleanRecord(applyTransforms(data, form.uiSchema)));
      toast.success(t(form.success ?? 'messages.saved'));
      onSaved(record ?? {});
    } catch (err) {
      // Kept for a second user's approval: the dialog's work is done, as after a save.
      if (toastIfPending(toast, err)) {
        onSaved({});
        return;
      }
      const message = err instanceof Error ? err.message : t('errors.generic');
      toast.error(message);
      if (err instanceof ApiError && err.field && err.field in form.schema.properties) {
        setFieldError({ field: err.field, message });
      }
    } finally {
      setSubmitting(false);
    }
  };

  const close = () => {
    if (submitting) return;
    setFieldError(null);
    onClose();
  };

  const blocked = form?.saveWhenValid === true && !valid;
  const footer = (
    <div className="form-dialog__footer">
      {/* A Save kept disabled says what it waits for. */}
      {blocked && problems.length > 0 && (
        <small className="form-dialog__missing" data-testid="form-missing">
          {t('forms.incomplete', { fields: problems.join(', ') })}
        </small>
      )}
      <Button type="button" label={t('common.cancel')} outlined onClick={close} disabled={submitting} data-testid="form-cancel" />
      <Button
        type="submit"
        form={formId}
        label={t('common.save')}
        icon="pi pi-check"
        loading={submitting}
        disabled={submitting || !form || blocked}
        data-testid="form-save"
      />
    </div>
  );

  return (
    <Dialog
      visible={visible}
      onHide={close}
      header={form ? t(form.title) : ''}
      footer={footer}
      modal
      draggable={false}
      resizable={false}
      closable={!submitting}
      style={{ width: `${form?.width ?? 500}px`, maxHeight: '90%' }}
      breakpoints={{ '640px': '95vw' }}
      className="form-dialog"
      data-testid={`form-dialog-${formName}`}
    >
      {error && <div className="grid-message grid-message--error">{error}</div>}
      {!form && !error && <ProgressBar mode="indeterminate" className="grid-progress" />}
      {form && (
        <Suspense fallback={<ProgressBar mode="indeterminate" className="grid-progress" />}>
          <RjsfForm
            key={session}
            id={formId}
            form={form}
            disabled={submitting}
            fieldError={fieldError}
            onFieldEdited={(field) => fieldError?.field === field && setFieldError(null)}
            onSubmit={(data) => void submit(data)}
            onInvalid={(missingRequired) => toast.error(t(missingRequired ? 'BANK_SETTINGS.REQUIRED_FIELDS' : 'forms.errors.fix'))}
            onValidity={form.saveWhenValid ? onValidity : undefined}
          />
        </Suspense>
      )}
    </Dialog>
  );
}

export default FormDialog;
