/**
 * The sidebar menu. It shows only the entries the user's roles grant (a deliberate change from
 * spec 01 §2 and §6, which list every entry and let users walk into Access Denied; the route
 * guards and the server's checks stay). Users and Roles are main entries after Settings, as
 * spec 01 §1 lists the areas, so only the Settings group folds. An entry's screen id is the one
 * the server lists for its path (see auth/screens), so the menu holds no ids of its own.
 */
import { pathGranted } from '../auth/screens';

export interface MenuLink {
  path: string;
  labelKey: string;
  icon: string;
  /**
   * The server granted the entry already (a metadata screen from its list of the screens the
   * roles grant); any other entry shows only when the roles grant the screen of its path.
   */
  granted?: true;
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
  { path: '/dashboard/userslist', labelKey: 'menu.users', icon: 'pi-users' },
  { path: '/dashboard/roleslist', labelKey: 'menu.roles', icon: 'pi-id-card' },
];

/** The group holding the route, so the sidebar can open it; null for top-level routes. */
export function groupForPath(pathname: string, menu: MenuEntry[] = MENU): string | null {
  for (const entry of menu) {
    if (isGroup(entry) && entry.items.some((item) => pathname === item.path)) return entry.id;
  }
  return null;
}

/** The entries the granted screen ids allow; a group with none of its entries left goes. */
export function permittedMenu(menu: MenuEntry[], screenIds: readonly number[]): MenuEntry[] {
  const allowed = (item: MenuLink) => item.granted === true || pathGranted(item.path, screenIds);
  return menu.flatMap((entry): MenuEntry[] => {
    if (!isGroup(entry)) return allowed(entry) ? [entry] : [];
    const items = entry.items.filter(allowed);
    return items.length > 0 ? [{ ...entry, items }] : [];
  });
}

/**
 * Where a signed-in user starts: the first menu entry their roles grant (Home for most), so
 * a role without Home does not land on Access Denied; Access Denied when nothing is granted.
 */
export function firstPermittedPath(screenIds: readonly number[]): string {
  const first = permittedMenu(MENU, screenIds).flatMap((e) => (isGroup(e) ? e.items : [e]))[0];
  return first?.path ?? '/dashboard/unauthorized';
}

/** A metadata screen that asks for a menu entry (views.yaml `screens.<route>.menu`). */
export interface MenuScreen {
  route: string;
  title: string;
  /** after: the route (under dashboard/) of the entry of its group it follows; else it comes last. */
  menu?: { group: 'main' | 'settings' | 'administration'; icon: string; after?: string };
}

/** Links placed after the entry whose path their screen names; the others at the end. */
function placeAfter(items: MenuLink[], extra: MenuScreen[], link: (s: MenuScreen) => MenuLink): MenuLink[] {
  const out = [...items];
  const rest: MenuLink[] = [];
  for (const s of extra) {
    const at = s.menu?.after ? out.findIndex((item) => item.path === `/dashboard/${s.menu?.after}`) : -1;
    if (at >= 0) out.splice(at + 1, 0, link(s));
    else rest.push(link(s));
  }
  return [...out, ...rest];
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
  const link = (s: MenuScreen): MenuLink => ({ path: `/dashboard/screens/${s.route}`, labelKey: s.title, icon: s.menu?.icon ?? 'pi-table', granted: true });
  // Administration screens follow Users and Roles, at the end of the menu.
  const administration = extra.filter((s) => s.menu?.group === 'administration').map(link);
  const menu = MENU.map((entry) =>
    isGroup(entry) ? { ...entry, items: placeAfter(entry.items, extra.filter((s) => s.menu?.group === entry.id), link) } : entry,
  );
  // Main screens go after the entry they name, else before the first group.
  const firstGroup = menu.findIndex(isGroup);
  const top = menu.slice(0, firstGroup).filter((e): e is MenuLink => !isGroup(e));
  const main = placeAfter(top, extra.filter((s) => s.menu?.group === 'main'), link);
  return [...main, ...menu.slice(firstGroup), ...administration];
}
