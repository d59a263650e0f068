/**
 * The route table of spec 01 §2: the hand-written screens. A hand-written screen's id (the
 * permission the guard checks) is the one the server lists for its route (see auth/screens).
 * Every metadata screen (views.yaml `screens:`) is served at dashboard/<route> by one route
 * below, its id the one its metadata names: none is written here.
 */
import { lazy, type ReactNode } from 'react';
import { Navigate, useParams, type RouteObject } from 'react-router-dom';
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
const TasksScreen = lazy(() => import('./screens/tasks/TasksScreen'));
const RoutedMetadataScreen = lazy(() => import('./engine/MetadataScreen').then((m) => ({ default: m.RoutedMetadataScreen })));

/** A metadata screen at dashboard/<route>, behind the guard of the screen id its metadata names. */
function MetadataRoute() {
  const { route = '' } = useParams();
  return (
    <RequireMetadataScreen key={route} route={route}>
      <RoutedMetadataScreen />
    </RequireMetadataScreen>
  );
}

export interface DashboardRoute {
  path: string;
  titleKey: string;
  element?: ReactNode;
}

export const DASHBOARD_ROUTES: DashboardRoute[] = [
  { path: 'home', titleKey: 'screens.home.title', element: <HomeScreen /> },
  { path: 'financialdocument', titleKey: 'screens.financialDocument.title', element: <DataImportScreen /> },
  { path: 'users/add', titleKey: 'screens.userAdd.title', element: <UserFormScreen /> },
  { path: 'users/edit/:id', titleKey: 'screens.userEdit.title', element: <UserFormScreen /> },
  { path: 'roles/add', titleKey: 'screens.roleAdd.title', element: <RoleFormScreen /> },
  { path: 'roles/edit/:id', titleKey: 'screens.roleEdit.title', element: <RoleFormScreen /> },
  { path: 'bank-settlement', titleKey: 'RECON.BANKSETTLEMENT', element: <BankSettlementScreen /> },
  { path: 'reports', titleKey: 'REPORTS.TITLE', element: <ReportsScreen /> },
  { path: 'tasks', titleKey: 'screens.tasks.title', element: <TasksScreen /> },
  // The task editor over the list: one screen (its grid stays as it was while the editor is open).
  { path: 'tasks/new', titleKey: 'screens.tasks.title', element: <TasksScreen /> },
  { path: 'tasks/edit/:id', titleKey: 'screens.tasks.title', element: <TasksScreen /> },
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
            element: (
              <RequireScreen path={route.path}>
                {route.element ?? <PlaceholderScreen key={route.path} titleKey={route.titleKey} />}
              </RequireScreen>
            ),
          })),
          // Every metadata screen: the metadata says (and the server checks) which screen id it is.
          { path: ':route', element: <MetadataRoute /> },
          // The address metadata screens had before they all lived at dashboard/<route>.
          { path: 'screens/:route', element: <MetadataRoute /> },
          { path: 'unauthorized', element: <AccessDeniedScreen /> },
          { path: '*', element: <FirstScreen /> },
        ],
      },
      { path: '*', element: <Navigate to="/login" replace /> },
    ],
  },
];
