import { describe, expect, it } from 'vitest';
import { groupForPath, isGroup, withMetadataScreens } from './menu';

describe('withMetadataScreens', () => {
  it('adds a metadata screen with a menu entry to its group, and leaves fixed routes alone', () => {
    const menu = withMetadataScreens([
      { route: 'audit-log', title: 'screens.auditLog.title', menu: { group: 'administration', icon: 'pi-history' } },
      { route: 'daily', title: 'screens.daily.title', menu: { group: 'main', icon: 'pi-calendar' } },
      { route: 'bank-settings', title: 'screens.bankSettings.title', menu: { group: 'settings', icon: 'pi-x' } },
      { route: 'hidden', title: 'screens.hidden.title' },
    ]);
    const admin = menu.find((e) => isGroup(e) && e.id === 'administration');
    expect(admin && isGroup(admin) ? admin.items.map((i) => i.path) : []).toEqual([
      '/dashboard/userslist',
      '/dashboard/roleslist',
      '/dashboard/screens/audit-log',
    ]);
    const paths = menu.flatMap((e) => (isGroup(e) ? e.items : [e])).map((i) => i.path);
    expect(paths).toContain('/dashboard/screens/daily');
    expect(paths.filter((p) => p.includes('bank-settings'))).toEqual(['/dashboard/bank-settings']);
    expect(paths.some((p) => p.includes('hidden'))).toBe(false);
    expect(groupForPath('/dashboard/screens/audit-log', menu)).toBe('administration');
  });
});
