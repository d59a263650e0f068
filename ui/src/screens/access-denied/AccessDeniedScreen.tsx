import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';

/**
 * Back in the app's own history; when there is none (the address was typed or opened from a
 * bookmark), the dashboard's start (the first screen the user may open), so Go Back never
 * leaves the app.
 */
function useGoBack() {
  const navigate = useNavigate();
  return () => {
    const state: unknown = window.history.state;
    const index = typeof state === 'object' && state !== null ? (state as { idx?: unknown }).idx : undefined;
    if (typeof index === 'number' && index > 0) void navigate(-1);
    else void navigate('/dashboard', { replace: true });
  };
}

export default function AccessDeniedScreen() {
  const { t } = useTranslation();
  const goBack = useGoBack();
  return (
    <section className="screen" data-testid="access-denied">
      <div className="card access-denied">
        <i className="pi pi-lock access-denied__icon" aria-hidden="true" />
        <h1 className="screen__title" data-testid="screen-title">
          {t('accessDenied.title')}
        </h1>
        <p>{t('accessDenied.message')}</p>
        <p className="muted">{t('accessDenied.hint')}</p>
        <Button label={t('accessDenied.goBack')} icon="pi pi-arrow-left" onClick={goBack} data-testid="go-back" />
      </div>
    </section>
  );
}
