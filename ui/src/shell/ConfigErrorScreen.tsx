import { useTranslation } from 'react-i18next';
import { Logo } from './Logo';

/** Shown instead of the app when /assets/app-config.json cannot be loaded. */
export function ConfigErrorScreen({ detail }: { detail: string }) {
  const { t } = useTranslation();
  return (
    <div className="auth-page">
      <div className="auth-card config-error" role="alert" data-testid="config-error">
        <div className="auth-card__brand">
          <Logo size={40} />
          <div className="auth-card__name">{t('app.name')}</div>
        </div>
        <h1 className="auth-card__title">
          <i className="pi pi-exclamation-triangle config-error__icon" aria-hidden="true" /> {t('app.configError.title')}
        </h1>
        <p>{t('app.configError.message')}</p>
        <p className="muted">{t('app.configError.hint')}</p>
        <p className="muted config-error__detail">{detail}</p>
        <button type="button" className="p-button p-component" onClick={() => window.location.reload()}>
          <span className="p-button-label">{t('app.configError.retry')}</span>
        </button>
      </div>
    </div>
  );
}
