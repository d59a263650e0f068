import { useTranslation } from 'react-i18next';

/** Shown for the moment a lazily loaded screen's code is on its way. */
export function ScreenFallback() {
  const { t } = useTranslation();
  return (
    <div className="screen-fallback" role="status">
      <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('app.loading')}
    </div>
  );
}
