import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { useCurrentUser } from '../auth/useSession';
import { ToastProvider } from './toast';
import { GlobalLoader } from './GlobalLoader';
import { LanguageButton } from './LanguageButton';
import { UserMenu } from './UserMenu';
import { ScreenFallback } from './ScreenFallback';

/** Wraps every route: language switch, account menu, loader, toasts, and the routed screen. */
export function RootShell() {
  // Read the session again on every navigation: the avatar follows sign-in and sign-out.
  useLocation();
  const user = useCurrentUser();
  return (
    <ToastProvider>
      <div className="root-controls">
        <LanguageButton />
        {user && <UserMenu user={user} />}
      </div>
      <Suspense fallback={<ScreenFallback />}>
        <Outlet />
      </Suspense>
      <GlobalLoader />
    </ToastProvider>
  );
}
