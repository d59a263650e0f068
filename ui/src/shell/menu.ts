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

/**
 * The hand-written screens' entries and the Settings group. Every metadata screen's entry
 * (label, icon, group and position) comes from its views.yaml `screens.<route>.menu`, joined
 * in by buildMenu; none is written here.
 */
export const MENU: MenuEntry[] = [
  { path: '/dashboard/home', labelKey: 'menu.home', icon: 'pi-home' },
  { path: '/dashboard/financialdocument', labelKey: 'menu.dataImport', icon: 'pi-upload' },
  { path: '/dashboard/bank-settlement', labelKey: 'menu.reconcile', icon: 'pi-sync' },
  { path: '/dashboard/tasks', labelKey: 'menu.tasks', icon: 'pi-check-square' },
  { path: '/dashboard/reports', labelKey: 'menu.reports', icon: 'pi-chart-bar' },
  { id: 'settings', labelKey: 'menu.settings', icon: 'pi-cog', items: [] },
];

/** The group holding the route, so the sidebar can open it; null for top-level routes. */
export function groupForPath(pathname: string, menu: MenuEntry[]): string | null {
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
 * Where a signed-in user starts: the first entry of the menu their roles grant (Home for most),
 * so a role without Home does not land on Access Denied; Access Denied when nothing is granted.
 */
export function firstPermittedPath(menu: MenuEntry[], screenIds: readonly number[]): string {
  const first = permittedMenu(menu, screenIds).flatMap((e) => (isGroup(e) ? e.items : [e]))[0];
  return first?.path ?? '/dashboard/unauthorized';
}

/** A metadata screen as the server lists it (views.yaml `screens.<route>`), with its menu entry. */
export interface MenuScreen {
  route: string;
  title: string;
  /**
   * after: the route (under dashboard/) of the entry it follows; else it comes last of its
   * group. label: the entry's translation key (default: the screen's title).
   */
  menu?: { group: 'main' | 'settings' | 'administration'; icon: string; after?: string; label?: string };
}

/**
 * Links placed after the entry whose route they name, in as many passes as the chain needs (an
 * entry may follow one placed before it); one naming no entry, or none, comes last in the order
 * given.
 */
function place(items: MenuLink[], screens: MenuScreen[]): MenuLink[] {
  const out = [...items];
  const pending = [...screens];
  const at = (s: MenuScreen) => (s.menu?.after ? out.findIndex((item) => item.path === `/dashboard/${s.menu?.after}`) : -1);
  while (pending.length > 0) {
    const next = pending.findIndex((s) => at(s) >= 0);
    if (next >= 0) {
      const [s] = pending.splice(next, 1);
      out.splice(at(s!) + 1, 0, menuLink(s!));
    } else {
      // None follows an entry already placed: the first that waits for no other pending entry
      // (it names none, or a route no screen has) goes last; a cycle takes the first.
      const waits = (s: MenuScreen) => pending.some((o) => o !== s && o.route === s.menu?.after);
      const free = Math.max(0, pending.findIndex((s) => !waits(s)));
      out.push(menuLink(pending.splice(free, 1)[0]!));
    }
  }
  return out;
}

function menuLink(s: MenuScreen): MenuLink {
  return { path: `/dashboard/${s.route}`, labelKey: s.menu?.label ?? s.title, icon: s.menu?.icon ?? 'pi-table', granted: true };
}

/**
 * The whole menu: the hand-written entries with every metadata screen that asks for an entry
 * in its group. Main entries sit among the top-level ones before the first group, settings
 * entries in the Settings group, administration entries (Users, Roles, Audit Trail) after it.
 */
export function buildMenu(screens: MenuScreen[]): MenuEntry[] {
  const inGroup = (group: string) => screens.filter((s) => s.menu?.group === group);
  const firstGroup = MENU.findIndex(isGroup);
  const top = MENU.slice(0, firstGroup).filter((e): e is MenuLink => !isGroup(e));
  const groups = MENU.slice(firstGroup).map((entry) => (isGroup(entry) ? { ...entry, items: place(entry.items, inGroup(entry.id)) } : entry));
  return [...place(top, inGroup('main')), ...groups, ...place([], inGroup('administration'))];
}
