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
export function groupForPath(pathname: string): string | null {
  for (const entry of MENU) {
    if (!isGroup(entry)) continue;
    if (entry.items.some((item) => pathname === item.path)) return entry.id;
    if ((GROUP_PREFIXES[entry.id] ?? []).some((prefix) => pathname.startsWith(prefix))) return entry.id;
  }
  return null;
}
