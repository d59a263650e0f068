import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { pendingRequests, subscribePending } from '../api/pending';

/** Covers the screen while any API request is pending, so nobody clicks twice on a slow call. */
export function GlobalLoader() {
  const pending = useSyncExternalStore(subscribePending, pendingRequests);
  const { t } = useTranslation();
  if (pending === 0) return null;
  return (
    <div className="global-loader" data-testid="global-loader" role="status" aria-live="polite">
      <div className="global-loader__box">
        <span className="global-loader__text">{t('shell.pleaseWait')}</span>
        <span className="global-loader__dots" aria-hidden="true">
          <span>.</span>
          <span>.</span>
          <span>.</span>
        </span>
      </div>
    </div>
  );
}
