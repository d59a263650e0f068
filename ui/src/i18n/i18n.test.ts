import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import en from './en.json';
import sv from './sv.json';
import es from './es.json';
import pt from './pt.json';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else flatten(value, path).forEach((v, k) => out.set(k, v));
  }
  return out;
}

const files: Record<string, Tree> = { en, sv, es, pt };
const reference = flatten(en);

describe('translation files', () => {
  for (const [lang, tree] of Object.entries(files)) {
    const keys = flatten(tree);

    it(`${lang} has every key of en`, () => {
      const missing = [...reference.keys()].filter((key) => !keys.has(key));
      expect(missing).toEqual([]);
    });

    it(`${lang} has no key that en lacks`, () => {
      const extra = [...keys.keys()].filter((key) => !reference.has(key));
      expect(extra).toEqual([]);
    });

    it(`${lang} has no empty value`, () => {
      const empty = [...keys.entries()].filter(([, value]) => value.trim() === '').map(([key]) => key);
      expect(empty).toEqual([]);
    });
  }

  it('translations are not copies of English for the menu', () => {
    for (const lang of ['sv', 'es', 'pt']) {
      const keys = flatten(files[lang]!);
      expect(keys.get('menu.home')).not.toBe(reference.get('menu.home'));
      expect(keys.get('shell.signOutConfirm')).not.toBe(reference.get('shell.signOutConfirm'));
    }
  });
});

// A screen is called the same in its menu entry and its title, in every language, and no title
// is a placeholder of the spec (first user, second round: "Reconcile" opened "Bank Settlement",
// "Bank Settings" opened "TBA Settings").
describe('screen names', () => {
  for (const [lang, tree] of Object.entries(files)) {
    // The UI's texts with the metadata's labels (labels/<lang>.yaml), as the app merges them.
    const labels = loadYaml(readFileSync(join(process.cwd(), '..', 'labels', `${lang}.yaml`), 'utf8')) as Tree;
    const t = new Map([...flatten(tree), ...flatten(labels)]);
    it(`${lang}: menu entries and titles agree`, () => {
      expect(t.get('RECON.BANKSETTLEMENT')).toBe(t.get('menu.reconcile'));
      expect(t.get('screens.bankSettlement.title')).toBe(t.get('menu.reconcile'));
      expect(t.get('screens.bankSettings.title')).toBe(t.get('menu.bankSettings'));
      const placeholders = [...t.entries()].filter(([, v]) => /\bTBA\b/.test(v));
      expect(placeholders).toEqual([]);
    });
  }
});
