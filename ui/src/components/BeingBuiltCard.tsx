import { useTranslation } from 'react-i18next';

/** The translated "being built" card, for a screen area that is still to come. */
export function BeingBuiltCard() {
  const { t } = useTranslation();
  return (
    <div className="card placeholder-card" data-testid="screen-placeholder">
      <i className="pi pi-wrench placeholder-card__icon" aria-hidden="true" />
      <p className="placeholder-card__message">{t('screens.placeholder.message')}</p>
      <p className="muted">{t('screens.placeholder.hint')}</p>
    </div>
  );
}
