/**
 * PrimeReact's own words (the paginator's and the date picker's accessibility labels, Clear,
 * Close, Today, the month and day names) in the reader's language: its built-in locale is
 * English only. The words live in the translation files under `prime`; the names of months
 * and days come from the browser (Intl), so they need no translation of their own.
 */
import { addLocale, locale, localeOptions } from 'primereact/api';
import type { i18n as I18n } from 'i18next';

/**
 * PrimeReact's English words as it ships them, kept before any language is registered:
 * addLocale replaces `aria` whole, so a label the translations lack would be no label at all.
 * With these underneath it is English at worst (primeLocale.test.tsx lists the labels the
 * components used here read, and checks every language has them).
 */
const SHIPPED = localeOptions('en') as { aria?: Record<string, string> };

function names(lng: string, kind: 'month' | 'weekday', width: 'long' | 'short' | 'narrow'): string[] {
  const format = new Intl.DateTimeFormat(lng, kind === 'month' ? { month: width, timeZone: 'UTC' } : { weekday: width, timeZone: 'UTC' });
  // 2023-01-01 was a Sunday: PrimeReact's day names start on Sunday.
  return Array.from({ length: kind === 'month' ? 12 : 7 }, (_, i) =>
    format.format(kind === 'month' ? Date.UTC(2023, i, 1) : Date.UTC(2023, 0, 1 + i)),
  );
}

/** Registers PrimeReact's locale for lng from the translations and makes it the current one. */
export function applyPrimeLocale(i18n: I18n, lng: string): void {
  const words = i18n.getResource(lng, 'translation', 'prime') as Record<string, unknown> | undefined;
  if (!words) return;
  addLocale(lng, {
    ...words,
    aria: { ...SHIPPED.aria, ...(words.aria as Record<string, string> | undefined) },
    dayNames: names(lng, 'weekday', 'long'),
    dayNamesShort: names(lng, 'weekday', 'short'),
    dayNamesMin: names(lng, 'weekday', 'narrow'),
    monthNames: names(lng, 'month', 'long'),
    monthNamesShort: names(lng, 'month', 'short'),
  });
  locale(lng);
}
