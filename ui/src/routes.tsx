/**
 * The route table of spec 01 §2. A hand-written screen's id (the permission the guard checks)
 * is the one the server lists for its route (see auth/screens); a metadata screen's is the one
 * its metadata names. Adding a screen means replacing one `element` here.
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
   * A metadata screen: its id is the `screen:` of views.yaml, which the server checks when the
   * screen's metadata is loaded. Any other route's id is the one the server lists for its path.
   */
  metadata?: true;
  titleKey: string;
  element?: ReactNode;
}

export const DASHBOARD_ROUTES: DashboardRoute[] = [
  { path: 'home', titleKey: 'screens.home.title', element: <HomeScreen /> },
  { path: 'financialdocument', titleKey: 'screens.financialDocument.title', element: <DataImportScreen /> },
  { path: 'userslist', metadata: true, titleKey: 'screens.usersList.title', element: <MetadataScreen route="userslist" titleKey="screens.usersList.title" /> },
  { path: 'users/add', titleKey: 'screens.userAdd.title', element: <UserFormScreen /> },
  { path: 'users/edit/:id', titleKey: 'screens.userEdit.title', element: <UserFormScreen /> },
  { path: 'roleslist', metadata: true, titleKey: 'screens.rolesList.title', element: <MetadataScreen route="roleslist" titleKey="screens.rolesList.title" /> },
  { path: 'roles/add', titleKey: 'screens.roleAdd.title', element: <RoleFormScreen /> },
  { path: 'roles/edit/:id', titleKey: 'screens.roleEdit.title', element: <RoleFormScreen /> },
  { path: 'csvprocessed', metadata: true, titleKey: 'screens.csvProcessed.title', element: <MetadataScreen route="csvprocessed" titleKey="screens.csvProcessed.title" /> },
  { path: 'bank-settings', metadata: true, titleKey: 'screens.bankSettings.title', element: <MetadataScreen route="bank-settings" titleKey="screens.bankSettings.title" /> },
  { path: 'cera-settings', metadata: true, titleKey: 'screens.ceraSettings.title', element: <MetadataScreen route="cera-settings" titleKey="screens.ceraSettings.title" /> },
  { path: 'ras-settings', metadata: true, titleKey: 'screens.rasSettings.title', element: <MetadataScreen route="ras-settings" titleKey="screens.rasSettings.title" /> },
  { path: 'config-settings', metadata: true, titleKey: 'screens.configSettings.title', element: <MetadataScreen route="config-settings" titleKey="screens.configSettings.title" /> },
  { path: 'extraction-logs', metadata: true, titleKey: 'screens.extractionLogs.title', element: <MetadataScreen route="extraction-logs" titleKey="screens.extractionLogs.title" /> },
  { path: 'bank-settlement', titleKey: 'RECON.BANKSETTLEMENT', element: <BankSettlementScreen /> },
  { path: 'reports', titleKey: 'REPORTS.TITLE', element: <ReportsScreen /> },
  { path: 'tasks', titleKey: 'screens.tasks.title', element: <TasksScreen /> },
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
            element: route.metadata ? (
              // A metadata screen: the metadata says (and the server checks) which screen id it is.
              <RequireMetadataScreen route={route.path}>{route.element}</RequireMetadataScreen>
            ) : (
              <RequireScreen path={route.path}>
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
