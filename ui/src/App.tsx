import { useState } from 'react';
import { createHashRouter, RouterProvider } from 'react-router-dom';
import { appRoutes } from './routes';

export function App() {
  // Created once per mount, not at module load, so tests can import routes without a router.
  const [router] = useState(() => createHashRouter(appRoutes));
  return <RouterProvider router={router} />;
}
