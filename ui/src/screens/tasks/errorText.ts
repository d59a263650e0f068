import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, GENERIC_ERROR } from '../../api/client';

/**
 * The text of a failed call in the reader's language: the translation of the answer's message
 * code (with its parameters) when there is one, else the server's English message, else the
 * fallback key's text.
 */
export function useErrorText(): (err: unknown, fallbackKey: string) => string {
  const { t, i18n } = useTranslation();
  return useCallback(
    (err: unknown, fallbackKey: string) => {
      if (err instanceof ApiError && err.code && i18n.exists(err.code)) {
        return t(err.code, { ...(err.params ?? {}), defaultValue: err.message });
      }
      if (err instanceof Error && err.message && err.message !== GENERIC_ERROR) return err.message;
      return t(fallbackKey);
    },
    [t, i18n],
  );
}
