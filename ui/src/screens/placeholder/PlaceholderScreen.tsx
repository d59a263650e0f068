import { useTranslation } from 'react-i18next';

/** Stands in for a screen that is not built yet, so no route ever shows a blank page. */
export default function PlaceholderScreen({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <section className="screen" data-testid="screen-placeholder">
      <header className="screen__header">
        <h1 className="screen__title" data-testid="screen-title">
          {t(titleKey)}
        </h1>
      </header>
      <div className="card placeholder-card">
        <i className="pi pi-wrench placeholder-card__icon" aria-hidden="true" />
        <p className="placeholder-card__message">{t('screens.placeholder.message')}</p>
        <p className="muted">{t('screens.placeholder.hint')}</p>
      </div>
    </section>
  );
}
