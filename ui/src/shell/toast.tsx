/**
 * One PrimeReact Toast for the whole app. Screens call useToast() instead of rendering their
 * own, so messages stack in one place and survive route changes.
 */
import { createContext, useContext, useMemo, useRef, type ReactNode } from 'react';
import { Toast } from 'primereact/toast';
import { useTranslation } from 'react-i18next';
import { isPendingApproval } from '../api/client';
import i18n from '../i18n';

export interface ToastApi {
  success(detail: string, summary?: string): void;
  info(detail: string, summary?: string): void;
  warn(detail: string, summary?: string): void;
  error(detail: string, summary?: string): void;
  /** Removes every message shown (a sign-in clears the failures before it). */
  clear(): void;
}

const ToastContext = createContext<ToastApi | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const toast = useRef<Toast>(null);
  const { t } = useTranslation();

  const api = useMemo<ToastApi>(
    () => ({
      success: (detail, summary) =>
        toast.current?.show({ severity: 'success', summary: summary ?? t('toast.success'), detail, life: 4000 }),
      info: (detail, summary) =>
        toast.current?.show({ severity: 'info', summary: summary ?? t('toast.info'), detail, life: 5000 }),
      warn: (detail, summary) =>
        toast.current?.show({ severity: 'warn', summary: summary ?? t('toast.warning'), detail, life: 6000 }),
      error: (detail, summary) =>
        toast.current?.show({ severity: 'error', summary: summary ?? t('toast.error'), detail, life: 7000 }),
      clear: () => toast.current?.clear(),
    }),
    [t],
  );

  return (
    <ToastContext.Provider value={api}>
      <Toast ref={toast} position="top-right" className="app-toast" />
      {children}
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast must be used inside ToastProvider');
  return api;
}

/**
 * A write the server kept for a second user's approval (isPendingApproval) is no failure: says
 * so in an info toast naming the request, and returns true so the caller goes on as after
 * success (closes its dialog, reloads its grid); false for any other error.
 */
export function toastIfPending(toast: ToastApi, err: unknown): boolean {
  if (!isPendingApproval(err)) return false;
  toast.info(err.message, i18n.t('approvals.toastTitle'));
  return true;
}
