import { describe, expect, it } from 'vitest';
import { buildMenu, firstPermittedPath, groupForPath, isGroup, MENU, permittedMenu, type MenuEntry, type MenuScreen } from './menu';

const paths = (menu: MenuEntry[]) => menu.flatMap((e) => (isGroup(e) ? e.items : [e])).map((i) => i.path);

// The metadata screens as views.yaml declares them, in the server's order (by route).
const SCREENS: MenuScreen[] = [
  { route: 'approvals', title: 't', menu: { group: 'main', icon: 'pi-x', after: 'reports' } },
  { route: 'audit', title: 't', menu: { group: 'administration', icon: 'pi-x', after: 'roleslist' } },
  { route: 'bank-settings', title: 't', menu: { group: 'settings', icon: 'pi-x', label: 'menu.bankSettings' } },
  { route: 'cera-settings', title: 't', menu: { group: 'settings', icon: 'pi-x', after: 'bank-settings' } },
  { route: 'config-settings', title: 't', menu: { group: 'settings', icon: 'pi-x', after: 'ras-settings' } },
  { route: 'csvprocessed', title: 't', menu: { group: 'main', icon: 'pi-x', after: 'financialdocument' } },
  { route: 'extraction-logs', title: 't', menu: { group: 'main', icon: 'pi-x', after: 'csvprocessed' } },
  { route: 'hidden', title: 't' },
  { route: 'open-items', title: 't', menu: { group: 'main', icon: 'pi-x', after: 'bank-settlement' } },
  { route: 'ras-settings', title: 't', menu: { group: 'settings', icon: 'pi-x', after: 'cera-settings' } },
  { route: 'roleslist', title: 't', menu: { group: 'administration', icon: 'pi-x', after: 'userslist' } },
  { route: 'userslist', title: 't', menu: { group: 'administration', icon: 'pi-x' } },
];

describe('buildMenu', () => {
  it('places every metadata screen by its group and the entry it follows, chains included', () => {
    const menu = buildMenu(SCREENS);
    expect(paths(menu)).toEqual([
      '/dashboard/home',
      '/dashboard/financialdocument',
      '/dashboard/csvprocessed',
      '/dashboard/extraction-logs',
      '/dashboard/bank-settlement',
      '/dashboard/open-items',
      '/dashboard/tasks',
      '/dashboard/reports',
      '/dashboard/approvals',
      '/dashboard/bank-settings',
      '/dashboard/cera-settings',
      '/dashboard/ras-settings',
      '/dashboard/config-settings',
      '/dashboard/userslist',
      '/dashboard/roleslist',
      '/dashboard/audit',
    ]);
    expect(groupForPath('/dashboard/ras-settings', menu)).toBe('settings');
    expect(groupForPath('/dashboard/audit', menu)).toBeNull();
    const bank = menu.find((e) => isGroup(e))!;
    expect(isGroup(bank) && bank.items[0]).toMatchObject({ labelKey: 'menu.bankSettings', granted: true });
  });

  it('puts an entry naming no entry, or none, last in its group', () => {
    const menu = buildMenu([
      { route: 'lost', title: 'screens.lost.title', menu: { group: 'main', icon: 'pi-x', after: 'no-such-route' } },
      { route: 'sla', title: 'screens.sla.title', menu: { group: 'settings', icon: 'pi-x' } },
    ]);
    const top = menu.filter((e) => !isGroup(e)).map((e) => (isGroup(e) ? e.id : e.path));
    expect(top.at(-1)).toBe('/dashboard/lost');
    const settings = menu.find((e) => isGroup(e) && e.id === 'settings');
    expect(settings && isGroup(settings) ? settings.items.map((i) => i.labelKey) : []).toEqual(['screens.sla.title']);
  });

  it('writes no metadata screen of its own', () => {
    expect(paths(MENU)).toEqual(['/dashboard/home', '/dashboard/financialdocument', '/dashboard/bank-settlement', '/dashboard/tasks', '/dashboard/reports']);
  });
});

describe('permissions', () => {
  it('lands on the first screen of the menu the roles grant', () => {
    const menu = buildMenu(SCREENS.filter((s) => s.route === 'extraction-logs' || s.route === 'cera-settings'));
    expect(firstPermittedPath(menu, [1, 2, 3])).toBe('/dashboard/home');
    expect(firstPermittedPath(menu, [9, 12])).toBe('/dashboard/extraction-logs');
    expect(firstPermittedPath(buildMenu([]), [])).toBe('/dashboard/unauthorized');
  });

  it('drops entries and empty groups the roles do not grant', () => {
    const menu = permittedMenu(MENU, [3, 5]);
    expect(menu).toEqual([]);
  });
});
