/**
 * Which screen a path belongs to. The ids are the server's (the web_screen table, listed with
 * their routes in the application configuration loaded at start); the UI keeps no numbers of
 * its own. A path belongs to the screen whose route is the path or its leading segments, so
 * `users/edit/7` is the screen of `dashboard/users`.
 */
import { getAppConfig, type ScreenRoute } from '../config/appConfig';

/** The path without leading slashes and without the dashboard's prefix: `/dashboard/users/add` -> `users/add`. */
function dashboardPath(path: string): string {
  return path.replace(/^\/+/, '').replace(/^dashboard(\/|$)/, '');
}

/** The screen of a dashboard path, or undefined when no listed screen has its route. */
export function screenForPath(path: string, screens: readonly ScreenRoute[] = getAppConfig().screens): ScreenRoute | undefined {
  const target = dashboardPath(path);
  if (target === '') return undefined;
  let best: ScreenRoute | undefined;
  let bestLength = -1;
  for (const screen of screens) {
    const route = dashboardPath(screen.route);
    if (route === '' || route.length <= bestLength) continue;
    if (target === route || target.startsWith(`${route}/`)) {
      best = screen;
      bestLength = route.length;
    }
  }
  return best;
}

/**
 * Whether the granted screen ids open the path: never when no screen has its route (a route
 * missing from the server's list is denied, not allowed by default).
 */
export function pathGranted(path: string, screenIds: readonly number[], screens?: readonly ScreenRoute[]): boolean {
  const screen = screenForPath(path, screens);
  return screen !== undefined && screenIds.includes(screen.id);
}
