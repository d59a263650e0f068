/**
 * The application configuration is served by the Go server at /assets/app-config.json so that
 * one UI build runs against any deployment. It is fetched once at start and kept in
 * localStorage under ApplicationConfig, where the rest of the app reads it synchronously.
 */

export interface LanguageOption {
  code: string;
  name: string;
}

export interface AppConfig {
  apiBase: string;
  appName: string;
  version: string;
  languages: LanguageOption[];
  defaultLanguage: string;
  dateFormats: string[];
  defaultDateFormat: string;
  pageSizes: number[];
  defaultPageSize: number;
  /** The largest file the server accepts for an import (bytes); absent from older servers. */
  uploadMaxBytes?: number;
  /** The rules the server checks passwords by: the checklist and meters use the same. */
  passwordRules: PasswordRulesConfig;
  /** Every screen a role can grant, with its route (`dashboard/home`): the guards and menu take ids from here. */
  screens: ScreenRoute[];
}

export interface ScreenRoute {
  id: number;
  route: string;
}

export interface PasswordRulesConfig {
  minLength: number;
  maxLength: number;
  /** The special characters a password needs one of. */
  specials: string;
}

export const CONFIG_URL = '/assets/app-config.json';
export const CONFIG_STORAGE_KEY = 'ApplicationConfig';

/** Used only when nothing is stored yet (unit tests, or a caller before start-up finished). */
export const FALLBACK_CONFIG: AppConfig = {
  apiBase: '/api',
  appName: 'Ledgerdesk',
  version: '',
  languages: [
    { code: 'en', name: 'English' },
    { code: 'sv', name: 'Svenska' },
    { code: 'es', name: 'Español' },
    { code: 'pt', name: 'Português' },
  ],
  defaultLanguage: 'en',
  dateFormats: [
    'DD-MM-YYYY HH:mm:ss',
    'DD/MM/YYYY HH:mm:ss',
    'MM-DD-YYYY HH:mm:ss',
    'MM/DD/YYYY HH:mm:ss',
    'YYYY-MM-DD HH:mm:ss',
    'YYYY/MM/DD HH:mm:ss',
  ],
  defaultDateFormat: 'DD-MM-YYYY HH:mm:ss',
  pageSizes: [10, 25, 50, 100],
  defaultPageSize: 100,
  passwordRules: { minLength: 8, maxLength: 20, specials: '!@#$%^&*(),.?":{}|<>' },
  // None until the server's list is loaded: every screen guard denies.
  screens: [],
};

function isAppConfig(value: unknown): value is AppConfig {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.apiBase === 'string' && Array.isArray(v.languages) && typeof v.defaultLanguage === 'string';
}

/** The configuration with what it lacks from the fallback; a screen list that is not one is none. */
function withDefaults(config: AppConfig): AppConfig {
  const merged = { ...FALLBACK_CONFIG, ...config };
  return Array.isArray(merged.screens) ? merged : { ...merged, screens: [] };
}

/**
 * Fetches the configuration and stores it. Throws when the server does not answer with a
 * usable configuration, so start-up can show an error screen instead of a half-working app.
 */
export async function loadAppConfig(fetchFn: typeof fetch = fetch): Promise<AppConfig> {
  const response = await fetchFn(CONFIG_URL, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body: unknown = await response.json();
  if (!isAppConfig(body)) throw new Error('invalid configuration');
  const config = withDefaults(body);
  localStorage.setItem(CONFIG_STORAGE_KEY, JSON.stringify(config));
  return config;
}

export function getAppConfig(): AppConfig {
  const raw = localStorage.getItem(CONFIG_STORAGE_KEY);
  if (!raw) return FALLBACK_CONFIG;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isAppConfig(parsed) ? withDefaults(parsed) : FALLBACK_CONFIG;
  } catch {
    return FALLBACK_CONFIG;
  }
}
