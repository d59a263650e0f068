import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';

/** The profile form (spec 01 §2 "Profile dialog") comes later; the dialog frame is final. */
export function ProfileDialog({ visible, onHide }: { visible: boolean; onHide: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      visible={visible}
      onHide={onHide}
      header={t('profile.myProfile')}
      modal
      draggable={false}
      resizable={false}
      style={{ width: '1000px', maxWidth: '95vw', maxHeight: '90%' }}
      data-testid="profile-dialog"
      footer={<Button label={t('common.close')} severity="secondary" outlined onClick={onHide} />}
    >
      <p className="muted">{t('profile.comingSoon')}</p>
    </Dialog>
  );
}
