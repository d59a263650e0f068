import { useRef } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Menu } from 'primereact/menu';
import type { MenuItem } from 'primereact/menuitem';
import { getAppConfig } from '../config/appConfig';
import { getToken, setStoredLanguage, updateCurrentUser } from '../auth/session';
import { isTokenValid } from '../auth/jwt';
import { profileApi } from '../api/identity';
import { useToast } from './toast';

export function LanguageButton() {
  const menu = useRef<Menu>(null);
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const toast = useToast();
  const current = i18n.resolvedLanguage ?? i18n.language;

  async function choose(code: string) {
    setStoredLanguage(code);
    await i18n.changeLanguage(code);
    // Signed in, the choice is the profile's language, so the next sign-in keeps it.
    if (isTokenValid(getToken())) {
      profileApi.setLanguage(code).then(
        () => updateCurrentUser({ languageCode: code }),
        (err: unknown) => toast.error(err instanceof Error ? err.message : t('errors.generic')),
      );
    }
    // Re-enter the same URL so screens that load translated data can refresh it.
    navigate(location.pathname + location.search, { replace: true });
  }

  const items: MenuItem[] = getAppConfig().languages.map((language) => ({
    label: language.name,
    command: () => void choose(language.code),
    template: (_item, options) => (
      // The theme styles links inside .p-menuitem-content; a template replaces that wrapper.
      <div className="p-menuitem-content">
        <button
          type="button"
          className={`${options.className} language-option${language.code === current ? ' is-current' : ''}`}
          data-testid={`language-option-${language.code}`}
          lang={language.code}
          onClick={options.onClick}
          tabIndex={-1}
        >
          <span className="language-option__code">{language.code.toUpperCase()}</span>
          <span className="p-menuitem-text">{language.name}</span>
          {language.code === current && <i className="pi pi-check language-option__check" aria-hidden="true" />}
        </button>
      </div>
    ),
  }));

  return (
    <>
      <button
        type="button"
        className="shell-icon-button language-button"
        data-testid="language-button"
        aria-label={t('shell.language')}
        aria-haspopup="menu"
        title={t('shell.language')}
        onClick={(event) => menu.current?.toggle(event)}
      >
        <i className="pi pi-globe" aria-hidden="true" />
        <span>{current.toUpperCase()}</span>
      </button>
      <Menu model={items} popup ref={menu} id="language-menu" data-testid="language-menu" popupAlignment="right" />
    </>
  );
}
