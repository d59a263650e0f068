import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';

/** Cancel, Save and New, Save: the footer of the user and role forms (spec 01 §2). */
export function FormActions({
  canSave,
  busy,
  onCancel,
  onSaveAndNew,
}: {
  canSave: boolean;
  busy: boolean;
  onCancel: () => void;
  onSaveAndNew: () => void;
}) {
  const { t } = useTranslation();
  return (
    <footer className="form-actions">
      <Button type="button" label={t('common.cancel')} severity="secondary" outlined onClick={onCancel} data-testid="form-cancel" />
      <Button
        type="button"
        label={t('common.saveAndNew')}
        icon="pi pi-plus"
        severity="secondary"
        disabled={!canSave || busy}
        onClick={onSaveAndNew}
        data-testid="form-save-new"
      />
      <Button type="submit" label={t('common.save')} icon="pi pi-check" disabled={!canSave || busy} loading={busy} data-testid="form-save" />
    </footer>
  );
}
