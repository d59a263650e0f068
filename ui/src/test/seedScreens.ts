/**
 * The screens of the seed migration, as the server lists them in the application
 * configuration: tests run the guards and menu against the real ids and routes.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_STORAGE_KEY, FALLBACK_CONFIG, type ScreenRoute } from '../config/appConfig';

function parseSeed(sql: string): ScreenRoute[] {
  const rows = /insert into web_screen \(id, screen_name, route\) values([\s\S]*?);/.exec(sql)?.[1];
  if (!rows) throw new Error('the seed migration has no web_screen rows');
  return [...rows.matchAll(/\((\d+),\s*'[^']*',\s*'([^']*)'\)/g)].map((m) => ({ id: Number(m[1]), route: m[2] ?? '' }));
}

const seedFile = resolve(dirname(fileURLToPath(import.meta.url)), '../../../migrations/00001_init.sql');

export const SEED_SCREENS: ScreenRoute[] = parseSeed(readFileSync(seedFile, 'utf8'));

/** Stores the configuration a start-up stores (unless a test stored its own): the screens are the seed's. */
export function seedAppConfig(): void {
  if (localStorage.getItem(CONFIG_STORAGE_KEY) === null) {
    localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify({ ...FALLBACK_CONFIG, screens: SEED_SCREENS }));
  }
}
