import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { appRoutes } from '../routes';
import { SessionKeys } from '../auth/session';
import { seedAppConfig } from './seedScreens';

function base64Url(value: object): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** An unsigned token; the UI only reads exp, the server checks signatures. */
export function makeJwt(expSeconds: number): string {
  return `${base64Url({ alg: 'HS256', typ: 'JWT' })}.${base64Url({ sub: '1', exp: expSeconds })}.signature`;
}

export function seedSession({ screenIds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], expired = false } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const token = makeJwt(expired ? now - 60 : now + 3600);
  seedAppConfig(); // a session is always of an app that has started
  localStorage.setItem(SessionKeys.token, token);
  localStorage.setItem(SessionKeys.screenIds, JSON.stringify(screenIds));
  localStorage.setItem(
    SessionKeys.currentUser,
    JSON.stringify({ username: 'anna', firstName: 'Anna', lastName: 'Berg', email: 'anna@example.com', token }),
  );
  return token;
}

/** Renders the real route table at `path`; returns the router to inspect the location. */
export function renderAt(path: string) {
  const router = createMemoryRouter(appRoutes, { initialEntries: [path] });
  const utils = render(<RouterProvider router={router} />);
  return { router, ...utils };
}

export function locationOf(router: ReturnType<typeof createMemoryRouter>): string {
  const { pathname, search } = router.state.location;
  return pathname + search;
}
