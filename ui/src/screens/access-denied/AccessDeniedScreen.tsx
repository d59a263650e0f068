import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';

export default function AccessDeniedScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <section className="screen" data-testid="access-denied">
      <div className="card access-denied">
        <i className="pi pi-lock access-denied__icon" aria-hidden="true" />
        <h1 className="screen__title" data-testid="screen-title">
          {t('accessDenied.title')}
        </h1>
        <p>{t('accessDenied.message')}</p>
        <p className="muted">{t('accessDenied.hint')}</p>
        <Button label={t('accessDenied.goBack')} icon="pi pi-arrow-left" onClick={() => navigate(-1)} data-testid="go-back" />
      </div>
    </section>
  );
}
