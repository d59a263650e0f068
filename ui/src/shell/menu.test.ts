import { describe, expect, it } from 'vitest';
import { firstPermittedPath, groupForPath, isGroup, MENU, permittedMenu, withMetadataScreens } from './menu';

describe('withMetadataScreens', () => {
  it('adds a metadata screen with a menu entry to its group, and leaves fixed routes alone', () => {
    const menu = withMetadataScreens([
      { route: 'audit-log', title: 'screens.auditLog.title', menu: { group: 'administration', icon: 'pi-history' } },
      { route: 'daily', title: 'screens.daily.title', menu: { group: 'main', icon: 'pi-calendar' } },
      { route: 'bank-settings', title: 'screens.bankSettings.title', menu: { group: 'settings', icon: 'pi-x' } },
      { route: 'hidden', title: 'screens.hidden.title' },
    ]);
    const paths = menu.flatMap((e) => (isGroup(e) ? e.items : [e])).map((i) => i.path);
    expect(paths).toContain('/dashboard/screens/daily');
    expect(paths.filter((p) => p.includes('bank-settings'))).toEqual(['/dashboard/bank-settings']);
    expect(paths.some((p) => p.includes('hidden'))).toBe(false);
    // An administration screen follows Users and Roles at the end of the menu.
    expect(paths.slice(-3)).toEqual(['/dashboard/userslist', '/dashboard/roleslist', '/dashboard/screens/audit-log']);
    expect(groupForPath('/dashboard/screens/audit-log', menu)).toBeNull();
  });

  it('places an entry after the one it names, in the main list and in a group', () => {
    const menu = withMetadataScreens([
      { route: 'open-items', title: 'screens.openItems.title', menu: { group: 'main', icon: 'pi-x', after: 'bank-settlement' } },
      { route: 'sla', title: 'screens.sla.title', menu: { group: 'settings', icon: 'pi-x', after: 'bank-settings' } },
      { route: 'lost', title: 'screens.lost.title', menu: { group: 'main', icon: 'pi-x', after: 'no-such-route' } },
    ]);
    const top = menu.filter((e) => !isGroup(e)).map((e) => (isGroup(e) ? e.id : e.path));
    const at = top.indexOf('/dashboard/bank-settlement');
    expect(top[at + 1]).toBe('/dashboard/screens/open-items');
    // one naming no entry comes last of the main list, before the groups
    expect(top.indexOf('/dashboard/screens/lost')).toBe(top.indexOf('/dashboard/reports') + 1);
    const settings = menu.find((e) => isGroup(e) && e.id === 'settings');
    const items = settings && isGroup(settings) ? settings.items.map((i) => i.path) : [];
    expect(items.slice(0, 2)).toEqual(['/dashboard/bank-settings', '/dashboard/screens/sla']);
  });
});

describe('permissions', () => {
  it('lands on the first screen the roles grant', () => {
    expect(firstPermittedPath([1, 2, 3])).toBe('/dashboard/home');
    expect(firstPermittedPath([9, 12])).toBe('/dashboard/extraction-logs');
    expect(firstPermittedPath([10])).toBe('/dashboard/ras-settings');
    expect(firstPermittedPath([])).toBe('/dashboard/unauthorized');
  });

  it('drops entries and empty groups the roles do not grant', () => {
    const menu = permittedMenu(MENU, [3, 5]);
    expect(menu.map((e) => (isGroup(e) ? e.id : e.path))).toEqual(['/dashboard/userslist', '/dashboard/roleslist']);
  });
});
