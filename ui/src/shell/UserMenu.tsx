import { lazy, Suspense, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Menu } from 'primereact/menu';
import type { MenuItem } from 'primereact/menuitem';
import { ConfirmDialog } from 'primereact/confirmdialog';
import { pathGranted } from '../auth/screens';
import { getScreenIds, type CurrentUser } from '../auth/session';
import { signOut } from './signOut';

// The profile form (calendar, dropdowns, formik) loads on first opening, not with the shell.
const ProfileDialog = lazy(() => import('./ProfileDialog').then((m) => ({ default: m.ProfileDialog })));

export function initials(user: Pick<CurrentUser, 'firstName' | 'lastName' | 'username'>): string {
  const letters = `${user.firstName?.trim().charAt(0) ?? ''}${user.lastName?.trim().charAt(0) ?? ''}`;
  return (letters || user.username?.charAt(0) || '?').toUpperCase();
}

function entry(id: string, label: string, icon: string, action: () => void): MenuItem {
  return {
    label,
    command: action,
    template: (_item, options) => (
      // The theme styles links inside .p-menuitem-content; a template replaces that wrapper.
      <div className="p-menuitem-content">
        <button
          type="button"
          className={`${options.className} user-menu__entry`}
          data-testid={`user-menu-${id}`}
          onClick={options.onClick}
          tabIndex={-1}
        >
          <i className={`pi ${icon} p-menuitem-icon`} aria-hidden="true" />
          <span className="p-menuitem-text">{label}</span>
        </button>
      </div>
    ),
  };
}

export function UserMenu({ user }: { user: CurrentUser }) {
  const menu = useRef<Menu>(null);
  const [profileOpen, setProfileOpen] = useState(false);
  const [profileLoaded, setProfileLoaded] = useState(false);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const { t } = useTranslation();
  const navigate = useNavigate();
  const fullName = `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim() || user.username;
  const granted = getScreenIds();

  const items: MenuItem[] = [
    {
      template: () => (
        <div className="user-menu__header" data-testid="user-menu-header">
          <span className="user-avatar user-avatar--large" aria-hidden="true">
            {initials(user)}
          </span>
          <span className="user-menu__identity">
            <strong>{fullName}</strong>
            <small>{user.email}</small>
          </span>
        </div>
      ),
    },
    { separator: true },
    entry('profile', t('shell.profile'), 'pi-user', () => {
      setProfileLoaded(true);
      setProfileOpen(true);
    }),
    // Like the sidebar, only what the roles grant (users list 3, roles list 5).
    ...(pathGranted('/dashboard/userslist', granted) ? [entry('users', t('shell.users'), 'pi-users', () => navigate('/dashboard/userslist'))] : []),
    ...(pathGranted('/dashboard/roleslist', granted) ? [entry('roles', t('shell.roles'), 'pi-shield', () => navigate('/dashboard/roleslist'))] : []),
    { separator: true },
    entry('signout', t('shell.signOut'), 'pi-sign-out', () => setConfirmOpen(true)),
  ];

  return (
    <>
      <button
        type="button"
        className="user-avatar user-avatar-button"
        data-testid="user-avatar"
        aria-label={t('shell.userMenu')}
        aria-haspopup="menu"
        title={fullName}
        onClick={(event) => menu.current?.toggle(event)}
      >
        {initials(user)}
      </button>
      <Menu model={items} popup ref={menu} id="user-menu" className="user-menu" popupAlignment="right" />
      {profileLoaded && (
        <Suspense fallback={null}>
          <ProfileDialog visible={profileOpen} onHide={() => setProfileOpen(false)} />
        </Suspense>
      )}
      <ConfirmDialog
        visible={confirmOpen}
        onHide={() => setConfirmOpen(false)}
        header={t('shell.signOut')}
        message={t('shell.signOutConfirm')}
        icon="pi pi-sign-out"
        acceptLabel={t('common.yes')}
        rejectLabel={t('common.no')}
        data-testid="signout-dialog"
        className="signout-dialog"
        accept={() => {
          void signOut().then(() => navigate('/login', { replace: true }));
        }}
      />
    </>
  );
}
