import { describe, expect, it } from 'vitest';
import { DASHBOARD_ROUTES } from '../routes';
import { isGroup, MENU } from '../shell/menu';
import { SEED_SCREENS } from '../test/seedScreens';
import { pathGranted, screenForPath } from './screens';

const screens = [
  { id: 1, route: 'dashboard/home' },
  { id: 4, route: 'dashboard/users' },
  { id: 3, route: 'dashboard/userslist' },
];

describe('screenForPath', () => {
  it.each([
    ['home', 1],
    ['/dashboard/home', 1],
    ['users/add', 4],
    ['users/edit/:id', 4],
    ['/dashboard/users/edit/7', 4],
    ['userslist', 3],
    ['users', 4],
    ['homes', undefined],
    ['reports', undefined],
    ['', undefined],
    ['/dashboard', undefined],
  ])('%s is screen %s', (path, id) => {
    expect(screenForPath(path, screens)?.id).toBe(id);
  });

  it('denies a path no screen has, whatever the grants', () => {
    expect(pathGranted('reports', [1, 3, 4, 15], screens)).toBe(false);
    expect(pathGranted('users/add', [3], screens)).toBe(false);
    expect(pathGranted('users/add', [4], screens)).toBe(true);
    expect(pathGranted('home', [1], [])).toBe(false);
  });
});

describe('the seed migration', () => {
  it('has a screen for every hand-written route and every menu entry', () => {
    const paths = [
      ...DASHBOARD_ROUTES.map((r) => r.path),
      ...MENU.flatMap((e) => (isGroup(e) ? e.items : [e])).map((i) => i.path),
    ];
    expect(paths.length).toBeGreaterThanOrEqual(10);
    const unresolved = paths.filter((path) => screenForPath(path, SEED_SCREENS) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('gives each screen its own route', () => {
    const routes = SEED_SCREENS.map((s) => s.route);
    expect(SEED_SCREENS.length).toBeGreaterThanOrEqual(15);
    expect(new Set(routes).size).toBe(routes.length);
    expect(screenForPath('bank-settlement', SEED_SCREENS)?.route).toBe('dashboard/bank-settlement');
  });
});
