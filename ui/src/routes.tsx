/**
 * The route table of spec 01 §2. Each dashboard route names its screen id (the permission the
 * guard checks) and either a built screen or the placeholder, so adding a screen means
 * replacing one `element` here.
 */
import { lazy, type ReactNode } from 'react';
import { Navigate, type RouteObject } from 'react-router-dom';
import { RootShell } from './shell/RootShell';
import { DashboardShell } from './shell/DashboardShell';
import { FirstScreen, RequireAuth, RequireScreen } from './auth/guards';
import { RequireMetadataScreen } from './engine/RequireMetadataScreen';

const LoginScreen = lazy(() => import('./screens/login/LoginScreen'));
const ForgotPasswordScreen = lazy(() => import('./screens/forgot-password/ForgotPasswordScreen'));
const AccessDeniedScreen = lazy(() => import('./screens/access-denied/AccessDeniedScreen'));
const PlaceholderScreen = lazy(() => import('./screens/placeholder/PlaceholderScreen'));
const UserFormScreen = lazy(() => import('./screens/users/UserFormScreen'));
const RoleFormScreen = lazy(() => import('./screens/roles/RoleFormScreen'));
const DataImportScreen = lazy(() => import('./screens/data-import/DataImportScreen'));
const ReportsScreen = lazy(() => import('./screens/reports/ReportsScreen'));
const HomeScreen = lazy(() => import('./screens/home/HomeScreen'));
const BankSettlementScreen = lazy(() => import('./screens/bank-settlement/BankSettlementScreen'));
const MetadataScreen = lazy(() => import('./engine/MetadataScreen'));
const TasksScreen = lazy(() => import('./screens/tasks/TasksScreen'));
const RoutedMetadataScreen = lazy(() => import('./engine/MetadataScreen').then((m) => ({ default: m.RoutedMetadataScreen })));

export interface DashboardRoute {
  path: string;
  /**
   * The screen id the guard checks. Metadata screens have none here: their id is the
   * `screen:` of views.yaml, which the server checks when the screen's metadata is loaded.
   */
  screenId?: number;
  titleKey: string;
  element?: ReactNode;
}

export const SCREEN_IDS = {
  home: 1,
  financialDocument: 2,
  usersList: 3,
  userEdit: 4,
  rolesList: 5,
  roleEdit: 6,
  csvProcessed: 7,
  bankSettings: 8,
  ceraSettings: 9,
  rasSettings: 10,
  configSettings: 11,
  extractionLogs: 12,
  bankSettlement: 13,
  tasks: 14,
  reports: 15,
} as const;

export const DASHBOARD_ROUTES: DashboardRoute[] = [
  { path: 'home', screenId: SCREEN_IDS.home, titleKey: 'screens.home.title', element: <HomeScreen /> },
  { path: 'financialdocument', screenId: SCREEN_IDS.financialDocument, titleKey: 'screens.financialDocument.title', element: <DataImportScreen /> },
  { path: 'userslist', titleKey: 'screens.usersList.title', element: <MetadataScreen route="userslist" titleKey="screens.usersList.title" /> },
  { path: 'users/add', screenId: SCREEN_IDS.userEdit, titleKey: 'screens.userAdd.title', element: <UserFormScreen /> },
  { path: 'users/edit/:id', screenId: SCREEN_IDS.userEdit, titleKey: 'screens.userEdit.title', element: <UserFormScreen /> },
  { path: 'roleslist', titleKey: 'screens.rolesList.title', element: <MetadataScreen route="roleslist" titleKey="screens.rolesList.title" /> },
  { path: 'roles/add', screenId: SCREEN_IDS.roleEdit, titleKey: 'screens.roleAdd.title', element: <RoleFormScreen /> },
  { path: 'roles/edit/:id', screenId: SCREEN_IDS.roleEdit, titleKey: 'screens.roleEdit.title', element: <RoleFormScreen /> },
  { path: 'csvprocessed', titleKey: 'screens.csvProcessed.title', element: <MetadataScreen route="csvprocessed" titleKey="screens.csvProcessed.title" /> },
  { path: 'bank-settings', titleKey: 'screens.bankSettings.title', element: <MetadataScreen route="bank-settings" titleKey="screens.bankSettings.title" /> },
  { path: 'cera-settings', titleKey: 'screens.ceraSettings.title', element: <MetadataScreen route="cera-settings" titleKey="screens.ceraSettings.title" /> },
  { path: 'ras-settings', titleKey: 'screens.rasSettings.title', element: <MetadataScreen route="ras-settings" titleKey="screens.rasSettings.title" /> },
  { path: 'config-settings', titleKey: 'screens.configSettings.title', element: <MetadataScreen route="config-settings" titleKey="screens.configSettings.title" /> },
  { path: 'extraction-logs', titleKey: 'screens.extractionLogs.title', element: <MetadataScreen route="extraction-logs" titleKey="screens.extractionLogs.title" /> },
  { path: 'bank-settlement', screenId: SCREEN_IDS.bankSettlement, titleKey: 'RECON.BANKSETTLEMENT', element: <BankSettlementScreen /> },
  { path: 'reports', screenId: SCREEN_IDS.reports, titleKey: 'REPORTS.TITLE', element: <ReportsScreen /> },
  { path: 'tasks', screenId: SCREEN_IDS.tasks, titleKey: 'screens.tasks.title', element: <TasksScreen /> },
];

export const appRoutes: RouteObject[] = [
  {
    path: '/',
    element: <RootShell />,
    children: [
      { index: true, element: <Navigate to="/login" replace /> },
      { path: 'login', element: <LoginScreen /> },
      { path: 'forgot-password', element: <ForgotPasswordScreen /> },
      {
        path: 'dashboard',
        element: (
          <RequireAuth>
            <DashboardShell />
          </RequireAuth>
        ),
        children: [
          { index: true, element: <FirstScreen /> },
          ...DASHBOARD_ROUTES.map((route) => ({
            path: route.path,
            element:
              route.screenId === undefined ? (
                // A metadata screen: the metadata says (and the server checks) which screen id it is.
                <RequireMetadataScreen route={route.path}>{route.element}</RequireMetadataScreen>
              ) : (
                <RequireScreen screenId={route.screenId}>
                  {route.element ?? <PlaceholderScreen key={route.path} titleKey={route.titleKey} />}
                </RequireScreen>
              ),
          })),
          // Screens described only in views.yaml; the server checks their screen id.
          { path: 'screens/:route', element: <RoutedMetadataScreen /> },
          { path: 'unauthorized', element: <AccessDeniedScreen /> },
          { path: '*', element: <FirstScreen /> },
        ],
      },
      { path: '*', element: <Navigate to="/login" replace /> },
    ],
  },
];
