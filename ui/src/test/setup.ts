/**
 * Vitest setup (see shared/UI-STACK.md): jsdom lacks what react-data-grid and PrimeReact use.
 */
import 'core-js/actual/iterator';
import cssEscape from 'css.escape';
import { afterEach, beforeEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import i18n, { initI18n, SUPPORTED_LANGUAGES } from '../i18n';
import { seedAppConfig } from './seedScreens';

if (typeof globalThis.CSS === 'undefined') {
  (globalThis as unknown as { CSS: { escape: (value: string) => string } }).CSS = { escape: cssEscape };
} else if (typeof CSS.escape !== 'function') {
  CSS.escape = cssEscape;
}

// findBy*/waitFor wait for a condition; on a busy machine it may take seconds, not testing-library's
// default one, to come true. One bound for every test file.
configure({ asyncUtilTimeout: 45_000 });

Element.prototype.scrollIntoView = function scrollIntoView() {};

// jsdom has no layout; the grid renders only the columns that fit a non-zero width.
for (const prop of ['clientWidth', 'clientHeight'] as const) {
  const original = Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop);
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get(this: HTMLElement) {
      if (this.classList.contains('rdg')) return prop === 'clientWidth' ? 1200 : 600;
      return original?.get ? original.get.call(this) : 0;
    },
  });
}

if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

afterEach(() => {
  cleanup();
  localStorage.clear();
});

// Every test starts in English, whatever an earlier test switched to, with the configuration
// a start-up stores: the screens are the seed migration's.
beforeEach(async () => {
  seedAppConfig();
  await initI18n('en');
  addMetadataLabels();
});

/**
 * The metadata's labels (../labels/<lang>.yaml beside views.yaml), which the app reads from the
 * server at run time, merged as the app merges them, so components show what users see.
 */
let labels: Record<string, object> | undefined;
function addMetadataLabels() {
  labels ??= Object.fromEntries(
    SUPPORTED_LANGUAGES.map((lang) => [lang, loadYaml(readFileSync(join(process.cwd(), '..', 'labels', `${lang}.yaml`), 'utf8')) as object]),
  );
  for (const [lang, tree] of Object.entries(labels)) i18n.addResourceBundle(lang, 'translation', tree, true, true);
}
