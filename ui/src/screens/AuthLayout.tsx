import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Logo } from '../shell/Logo';

/** The centred card shared by the public screens (sign-in, forgot password). */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="auth-page">
      <div className="auth-card">
        <div className="auth-card__brand">
          <Logo size={40} />
          <div>
            <div className="auth-card__name">{t('app.name')}</div>
            <div className="auth-card__tagline">{t('app.tagline')}</div>
          </div>
        </div>
        <h1 className="auth-card__title" data-testid="screen-title">
          {title}
        </h1>
        {subtitle && <p className="auth-card__subtitle">{subtitle}</p>}
        {children}
      </div>
    </div>
  );
}
