/**
 * The sidebar menu. Every entry is shown to everyone (spec 01 §6: the menu is not filtered);
 * the route guards decide what opens.
 */

export interface MenuLink {
  path: string;
  labelKey: string;
  icon: string;
}

export interface MenuGroup {
  id: string;
  labelKey: string;
  icon: string;
  items: MenuLink[];
}

export type MenuEntry = MenuLink | MenuGroup;

export function isGroup(entry: MenuEntry): entry is MenuGroup {
  return 'items' in entry;
}

export const MENU: MenuEntry[] = [
  { path: '/dashboard/home', labelKey: 'menu.home', icon: 'pi-home' },
  { path: '/dashboard/financialdocument', labelKey: 'menu.dataImport', icon: 'pi-upload' },
  { path: '/dashboard/csvprocessed', labelKey: 'menu.dataProcessed', icon: 'pi-database' },
  { path: '/dashboard/extraction-logs', labelKey: 'menu.extractionLogs', icon: 'pi-list' },
  { path: '/dashboard/bank-settlement', labelKey: 'menu.reconcile', icon: 'pi-sync' },
  { path: '/dashboard/tasks', labelKey: 'menu.tasks', icon: 'pi-check-square' },
  { path: '/dashboard/reports', labelKey: 'menu.reports', icon: 'pi-chart-bar' },
  {
    id: 'settings',
    labelKey: 'menu.settings',
    icon: 'pi-cog',
    items: [
      { path: '/dashboard/bank-settings', labelKey: 'menu.bankSettings', icon: 'pi-building-columns' },
      { path: '/dashboard/cera-settings', labelKey: 'menu.exchangeRates', icon: 'pi-euro' },
      { path: '/dashboard/ras-settings', labelKey: 'menu.countryList', icon: 'pi-globe' },
      { path: '/dashboard/config-settings', labelKey: 'menu.configSettings', icon: 'pi-sliders-h' },
    ],
  },
  {
    id: 'administration',
    labelKey: 'menu.administration',
    icon: 'pi-shield',
    items: [
      // Add/edit screens belong to their list, so the group stays open there too.
      { path: '/dashboard/userslist', labelKey: 'menu.users', icon: 'pi-users' },
      { path: '/dashboard/roleslist', labelKey: 'menu.roles', icon: 'pi-id-card' },
    ],
  },
];

const GROUP_PREFIXES: Record<string, string[]> = {
  administration: ['/dashboard/users/', '/dashboard/roles/'],
};

/** The group holding the route, so the sidebar can open it; null for top-level routes. */
export function groupForPath(pathname: string, menu: MenuEntry[] = MENU): string | null {
  for (const entry of menu) {
    if (!isGroup(entry)) continue;
    if (entry.items.some((item) => pathname === item.path)) return entry.id;
    if ((GROUP_PREFIXES[entry.id] ?? []).some((prefix) => pathname.startsWith(prefix))) return entry.id;
  }
  return null;
}

/** A metadata screen that asks for a menu entry (views.yaml `screens.<route>.menu`). */
export interface MenuScreen {
  route: string;
  title: string;
  menu?: { group: 'main' | 'settings' | 'administration'; icon: string };
}

/**
 * The menu with the metadata screens that have no fixed entry added to their group, so a
 * screen added in YAML is reachable without a code change.
 */
export function withMetadataScreens(screens: MenuScreen[]): MenuEntry[] {
  const fixed = new Set<string>();
  for (const entry of MENU) {
    for (const item of isGroup(entry) ? entry.items : [entry]) fixed.add(item.path);
  }
  const extra = screens.filter((s) => s.menu && !fixed.has(`/dashboard/${s.route}`));
  if (extra.length === 0) return MENU;
  const link = (s: MenuScreen): MenuLink => ({ path: `/dashboard/screens/${s.route}`, labelKey: s.title, icon: s.menu?.icon ?? 'pi-table' });
  const main = extra.filter((s) => s.menu?.group === 'main').map(link);
  const menu = MENU.map((entry) =>
    isGroup(entry) ? { ...entry, items: [...entry.items, ...extra.filter((s) => s.menu?.group === entry.id).map(link)] } : entry,
  );
  const firstGroup = menu.findIndex(isGroup);
  return [...menu.slice(0, firstGroup), ...main, ...menu.slice(firstGroup)];
}
