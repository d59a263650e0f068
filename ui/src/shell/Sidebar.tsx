import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { NavLink, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Logo } from './Logo';
import { groupForPath, isGroup, permittedMenu, type MenuLink } from './menu';
import { useMenu } from './useMenu';
import { getScreenIds, sessionVersion, subscribeSession } from '../auth/session';

interface SidebarProps {
  open: boolean;
  onNavigate?: () => void;
}

export function Sidebar({ open, onNavigate }: SidebarProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { menu: fullMenu } = useMenu();
  const [openGroup, setOpenGroup] = useState<string | null>(() => groupForPath(pathname, fullMenu));
  // Only what the user's roles grant (read again when the session changes); the route guards
  // and the server check the same ids. Metadata screens join with their views.yaml entries.
  useSyncExternalStore(subscribeSession, sessionVersion);
  const granted = getScreenIds().join(',');
  const menu = useMemo(() => permittedMenu(fullMenu, granted.split(',').map(Number)), [fullMenu, granted]);

  // Follow navigation from elsewhere (avatar menu, links in screens) to the right group.
  useEffect(() => {
    const group = groupForPath(pathname, menu);
    if (group) setOpenGroup(group);
  }, [pathname, menu]);

  const link = (item: MenuLink, nested: boolean) => (
    <li key={item.path}>
      <NavLink
        to={item.path}
        className={({ isActive }) => `sidebar__link${nested ? ' sidebar__link--nested' : ''}${isActive ? ' is-active' : ''}`}
        onClick={onNavigate}
      >
        <i className={`pi ${item.icon}`} aria-hidden="true" />
        <span>{t(item.labelKey)}</span>
      </NavLink>
    </li>
  );

  return (
    <aside className={`sidebar${open ? ' is-open' : ''}`} data-testid="sidebar" aria-hidden={!open} inert={!open}>
      <div className="sidebar__brand">
        <Logo />
        <span className="sidebar__name">{t('app.name')}</span>
      </div>
      <nav aria-label={t('shell.mainNavigation')} data-testid="sidebar-menu">
        <ul className="sidebar__menu">
          {menu.map((entry) => {
            if (!isGroup(entry)) return link(entry, false);
            const expanded = openGroup === entry.id;
            const panelId = `menu-group-${entry.id}`;
            return (
              <li key={entry.id} className={`sidebar__group${expanded ? ' is-expanded' : ''}`} data-testid={`menu-group-${entry.id}`}>
                <button
                  type="button"
                  className="sidebar__link sidebar__group-toggle"
                  aria-expanded={expanded}
                  aria-controls={panelId}
                  data-testid={`menu-group-toggle-${entry.id}`}
                  onClick={() => setOpenGroup(expanded ? null : entry.id)}
                >
                  <i className={`pi ${entry.icon}`} aria-hidden="true" />
                  <span>{t(entry.labelKey)}</span>
                  <i className={`pi pi-chevron-down sidebar__chevron`} aria-hidden="true" />
                </button>
                {expanded && (
                  <ul id={panelId} className="sidebar__submenu" data-testid={`menu-group-items-${entry.id}`}>
                    {entry.items.map((item) => link(item, true))}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
      </nav>
    </aside>
  );
}
