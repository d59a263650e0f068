import { useContext, useEffect, useState } from 'react';
import { createHashRouter, RouterProvider } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { PrimeReactContext, PrimeReactProvider } from 'primereact/api';
import { appRoutes } from './routes';

/** Keeps PrimeReact's words (paginator and date-picker labels, Clear, Close) in the reader's language. */
function PrimeLanguage() {
  const { i18n } = useTranslation();
  const prime = useContext(PrimeReactContext);
  const setLocale = prime?.setLocale;
  useEffect(() => {
    setLocale?.(i18n.language);
  }, [i18n.language, setLocale]);
  return null;
}

export function App() {
  // Created once per mount, not at module load, so tests can import routes without a router.
  const [router] = useState(() => createHashRouter(appRoutes));
  // The provider gives PrimeReact's overlays their settings from context: without it a popup
  // menu shown again after a browser Back read them from an undefined global and threw.
  return (
    <PrimeReactProvider>
      <PrimeLanguage />
      <RouterProvider router={router} />
    </PrimeReactProvider>
  );
}
