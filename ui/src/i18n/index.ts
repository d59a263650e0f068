/**
 * Translations: the UI's own texts, one JSON file per language with the same nested keys (a
 * unit test keeps them in step), all four bundled. The metadata's labels (views, forms,
 * screens, menus) are not here: they come from the server at run time (./metadataLabels).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import sv from './sv.json';
import es from './es.json';
import pt from './pt.json';
import { applyPrimeLocale } from './primeLocale';

export const resources = {
  en: { translation: en },
  sv: { translation: sv },
  es: { translation: es },
  pt: { translation: pt },
} as const;

export const SUPPORTED_LANGUAGES = Object.keys(resources);

export function isSupportedLanguage(code: string | null | undefined): code is string {
  return !!code && SUPPORTED_LANGUAGES.includes(code);
}

export async function initI18n(language: string): Promise<typeof i18n> {
  const lng = isSupportedLanguage(language) ? language : 'en';
  if (i18n.isInitialized) {
    await i18n.changeLanguage(lng);
    return i18n;
  }
  await i18n.use(initReactI18next).init({
    resources,
    lng,
    fallbackLng: 'en',
    interpolation: { escapeValue: false }, // React escapes already
    returnNull: false,
    // Metadata labels arrive after the first render: screens render again when they are added.
    react: { bindI18nStore: 'added' },
  });
  document.documentElement.lang = lng;
  applyPrimeLocale(i18n, lng);
  i18n.on('languageChanged', (code) => {
    document.documentElement.lang = code;
    applyPrimeLocale(i18n, code);
  });
  return i18n;
}

export default i18n;
