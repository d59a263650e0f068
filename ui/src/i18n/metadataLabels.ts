/**
 * The metadata's labels (the server's labels/<lang>.yaml: view columns, forms, screens, tabs,
 * menu entries, actions) are not bundled: they come from GET /api/meta/labels/{lang} and are
 * merged into the translations at run time, so a screen an analyst adds in YAML shows its
 * labels without a UI build. Read once per language and page load; the server answers a
 * browser that has them with a 304.
 */
import { useEffect, useState } from 'react';
import i18n from './index';
import { api } from '../api/client';

const loaded = new Map<string, Promise<void>>();

/** Merges lang's metadata labels into its translations (once per page load). */
export function loadMetadataLabels(lang: string): Promise<void> {
  let done = loaded.get(lang);
  if (!done) {
    done = api.getQuiet<unknown>(`/meta/labels/${lang}`).then(
      (tree) => {
        if (tree && typeof tree === 'object') i18n.addResourceBundle(lang, 'translation', tree, true, true);
      },
      () => {
        loaded.delete(lang); // tried again at the next language change or screen
      },
    );
    loaded.set(lang, done);
  }
  return done;
}

/**
 * Loads the labels of the language shown and of each language switched to; false until the
 * first ones arrived (or failed: the screens then show keys rather than nothing).
 */
export function useMetadataLabels(): boolean {
  const [ready, setReady] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    const load = (lang: string) => {
      void loadMetadataLabels(lang).then(() => alive && setReady(lang));
    };
    load(i18n.language);
    i18n.on('languageChanged', load);
    return () => {
      alive = false;
      i18n.off('languageChanged', load);
    };
  }, []);
  return ready !== null;
}
