/**
 * Navigation from outside React (the API client on a 401). The app uses a hash router,
 * which follows changes of location.hash, so setting the hash is enough.
 */

const PUBLIC_PATHS = ['/login', '/forgot-password'];

/** The router path in the hash, e.g. "/dashboard/userslist?x=1" for "#/dashboard/userslist?x=1". */
export function currentHashPath(): string {
  const path = window.location.hash.replace(/^#/, '');
  return path === '' ? '/' : path;
}

export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.some((p) => path === p || path.startsWith(`${p}?`) || path.startsWith(`${p}/`));
}

export function loginPathWithReturn(returnUrl: string): string {
  if (returnUrl === '/' || returnUrl === '' || isPublicPath(returnUrl)) return '/login';
  return `/login?returnUrl=${encodeURIComponent(returnUrl)}`;
}

export function redirectToLogin(): void {
  const here = currentHashPath();
  // A failed sign-in also answers 401: stay on the public screen so it can show the message.
  if (isPublicPath(here)) return;
  window.location.hash = `#${loginPathWithReturn(here)}`;
}

/** Only paths inside the app are accepted as return targets, never another origin. */
export function safeReturnUrl(value: string | null): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || isPublicPath(value)) return null;
  return value;
}
