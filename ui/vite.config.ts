/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The Go server owns /api and /assets/app-config.json; in development Vite forwards both to it.
const goServer = 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': goServer,
      '/assets/app-config.json': goServer,
    },
  },
  build: {
    outDir: 'dist',
    // react-data-grid ships light-dark() CSS that lower targets rewrite into broken rules.
    cssTarget: 'esnext',
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // A busy machine (CI beside a build) may take seconds for what takes milliseconds here:
    // tests wait for conditions, and these bounds only stop a test that never gets there.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // @rjsf/primereact uses directory imports that Node's ESM loader rejects unless Vite transforms it.
    server: { deps: { inline: [/@rjsf[\\/]primereact/] } },
  },
});
