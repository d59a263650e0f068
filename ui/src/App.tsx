import { useState } from 'react';
import { createHashRouter, RouterProvider } from 'react-router-dom';
import { PrimeReactProvider } from 'primereact/api';
import { appRoutes } from './routes';

export function App() {
  // Created once per mount, not at module load, so tests can import routes without a router.
  const [router] = useState(() => createHashRouter(appRoutes));
  // The provider gives PrimeReact's overlays their settings from context: without it a popup
  // menu shown again after a browser Back read them from an undefined global and threw.
  return (
    <PrimeReactProvider>
      <RouterProvider router={router} />
    </PrimeReactProvider>
  );
}
