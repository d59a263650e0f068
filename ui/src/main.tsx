import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'primereact/resources/themes/lara-light-blue/theme.css';
import 'primereact/resources/primereact.min.css';
import 'primeicons/primeicons.css';
import './styles.css';
import { loadAppConfig } from './config/appConfig';
import { getStoredLanguage } from './auth/session';
import { initI18n, isSupportedLanguage } from './i18n';
import { App } from './App';
import { ConfigErrorScreen } from './shell/ConfigErrorScreen';

async function start() {
  const root = createRoot(document.getElementById('root')!);
  // Translations first, with the user's stored choice, so even the error screen is translated.
  const i18n = await initI18n(getStoredLanguage() ?? 'en');
  try {
    const config = await loadAppConfig();
    if (!getStoredLanguage() && isSupportedLanguage(config.defaultLanguage)) {
      await i18n.changeLanguage(config.defaultLanguage);
    }
    document.title = config.appName;
  } catch (error) {
    root.render(<ConfigErrorScreen detail={error instanceof Error ? error.message : String(error)} />);
    return;
  }
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void start();
