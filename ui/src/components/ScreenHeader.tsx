import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

/**
 * The title row of a dashboard screen: an optional back link above the title, and actions on
 * the right (the Add User / Add Role buttons of the list screens).
 */
export function ScreenHeader({
  title,
  back,
  actions,
}: {
  title: string;
  back?: { to: string; label: string };
  actions?: ReactNode;
}) {
  return (
    <header className="screen__header">
      <div className="screen__heading">
        {back && (
          <Link to={back.to} className="back-link" data-testid="back-to-list">
            <i className="pi pi-arrow-left" aria-hidden="true" /> {back.label}
          </Link>
        )}
        <h1 className="screen__title" data-testid="screen-title">
          {title}
        </h1>
      </div>
      {actions && <div className="screen__actions">{actions}</div>}
    </header>
  );
}
