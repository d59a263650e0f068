/**
 * The metadata screens as views.yaml declares them, for tests that need the server's list of
 * them (GET /api/meta/screens): the sidebar's entries, the dashboard's start, the guards.
 */
import { getScreenIds } from '../auth/session';
import { ok, type Reply } from './apiMock';

/** The metadata screens as views.yaml declares them (`screens.<route>`: screen id, title, menu entry). */
export const METADATA_SCREENS = [
  { route: 'open-items', screen: 13, title: 'screens.openItems.title', menu: { group: 'main', icon: 'pi-exclamation-circle', after: 'bank-settlement' } },
  { route: 'approvals', screen: 17, title: 'screens.approvals.title', menu: { group: 'main', icon: 'pi-verified', after: 'reports' } },
  { route: 'audit', screen: 16, title: 'screens.audit.title', menu: { group: 'administration', icon: 'pi-shield', after: 'roleslist' } },
  { route: 'csvprocessed', screen: 7, title: 'screens.csvprocessed.title', menu: { group: 'main', icon: 'pi-database', label: 'menu.dataProcessed', after: 'financialdocument' } },
  { route: 'bank-settings', screen: 8, title: 'screens.bankSettings.title', menu: { group: 'settings', icon: 'pi-building-columns', label: 'menu.bankSettings' } },
  { route: 'cera-settings', screen: 9, title: 'screens.ceraSettings.title', menu: { group: 'settings', icon: 'pi-euro', label: 'menu.exchangeRates', after: 'bank-settings' } },
  { route: 'ras-settings', screen: 10, title: 'screens.rasSettings.title', menu: { group: 'settings', icon: 'pi-globe', label: 'menu.countryList', after: 'cera-settings' } },
  { route: 'config-settings', screen: 11, title: 'screens.configSettings.title', menu: { group: 'settings', icon: 'pi-sliders-h', label: 'menu.configSettings', after: 'ras-settings' } },
  { route: 'extraction-logs', screen: 12, title: 'screens.extractionLogs.title', menu: { group: 'main', icon: 'pi-list', label: 'menu.extractionLogs', after: 'csvprocessed' } },
  { route: 'userslist', screen: 3, title: 'screens.userslist.title', menu: { group: 'administration', icon: 'pi-users', label: 'menu.users' } },
  { route: 'roleslist', screen: 5, title: 'screens.roleslist.title', menu: { group: 'administration', icon: 'pi-id-card', label: 'menu.roles', after: 'userslist' } },
];

/**
 * GET /api/meta/screens as the server answers it: the metadata screens the signed-in roles
 * grant (the session's screen ids when the call is made), ordered by route.
 */
export const grantedScreens: Reply = () =>
  ok(METADATA_SCREENS.filter((s) => getScreenIds().includes(s.screen)).sort((a, b) => a.route.localeCompare(b.route)));

