/**
 * The signed-in session lives in localStorage under the key names of the spec, so that other
 * tabs and a page reload see the same session. Everything that reads or writes those keys goes
 * through this module, which also notifies React when the session changes (sign-in, sign-out,
 * a 401 elsewhere, another tab).
 */

export const SessionKeys = {
  currentUser: 'currentUser',
  token: 'token',
  jwtToken: 'jwt_token',
  screenIds: 'screenIds',
  userRoles: 'userRoles',
  defaultLang: 'defaultLang',
  dashboardFilters: 'dashboardFilters',
  bankSettlementTabIndex: 'bankSettlementTabIndex',
  bankOverviewParams: 'bankOverviewParams',
} as const;

/** The eight keys logout removes (spec 01 §4), plus jwt_token which an older reading also used. */
const KEYS_CLEARED_ON_LOGOUT: readonly string[] = [
  SessionKeys.currentUser,
  SessionKeys.token,
  SessionKeys.screenIds,
  SessionKeys.userRoles,
  SessionKeys.defaultLang,
  SessionKeys.dashboardFilters,
  SessionKeys.bankSettlementTabIndex,
  SessionKeys.bankOverviewParams,
  SessionKeys.jwtToken,
];

export interface CurrentUser {
  userId?: number;
  id?: number;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  mobileNumber?: string | null;
  dateOfBirth?: string | null;
  dateFormat?: string;
  languageCode?: string;
  token?: string;
}

export interface UserRole {
  id: number;
  roleName: string;
}

const listeners = new Set<() => void>();
let version = 0;

function notify(): void {
  version += 1;
  listeners.forEach((listener) => listener());
}

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === null || KEYS_CLEARED_ON_LOGOUT.includes(event.key)) notify();
  });
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Changes whenever the session does; a cheap snapshot for useSyncExternalStore. */
export function sessionVersion(): number {
  return version;
}

function readJson<T>(key: string): T | null {
  const raw = localStorage.getItem(key);
  if (raw === null || raw === '') return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function getToken(): string | null {
  return localStorage.getItem(SessionKeys.token) || null;
}

export function getCurrentUser(): CurrentUser | null {
  const user = readJson<CurrentUser>(SessionKeys.currentUser);
  return user && typeof user === 'object' ? user : null;
}

export function getScreenIds(): number[] {
  const ids = readJson<unknown>(SessionKeys.screenIds);
  return Array.isArray(ids) ? ids.map(Number).filter((n) => Number.isFinite(n)) : [];
}

export function getStoredLanguage(): string | null {
  const lang = readJson<unknown>(SessionKeys.defaultLang);
  return typeof lang === 'string' && lang !== '' ? lang : null;
}

export function setStoredLanguage(code: string): void {
  localStorage.setItem(SessionKeys.defaultLang, JSON.stringify(code));
}

export interface SignedInSession {
  token: string;
  user: CurrentUser;
  screenIds: number[];
  roles: UserRole[];
}

export function saveSession(session: SignedInSession): void {
  localStorage.setItem(SessionKeys.token, session.token);
  localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ ...session.user, token: session.token }));
  localStorage.setItem(SessionKeys.screenIds, JSON.stringify(session.screenIds));
  localStorage.setItem(SessionKeys.userRoles, JSON.stringify(session.roles));
  if (session.user.languageCode) setStoredLanguage(session.user.languageCode);
  notify();
}

/**
 * Merges changed profile fields into the stored current user, keeping the token and anything
 * the change does not name (after a profile save, or an administrator editing themself).
 */
export function updateCurrentUser(patch: Partial<CurrentUser>): void {
  const current = getCurrentUser();
  if (!current) return;
  const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  localStorage.setItem(SessionKeys.currentUser, JSON.stringify({ ...current, ...defined, token: current.token }));
  if (patch.languageCode) setStoredLanguage(patch.languageCode);
  notify();
}

export function clearSession(): void {
  KEYS_CLEARED_ON_LOGOUT.forEach((key) => localStorage.removeItem(key));
  notify();
}
