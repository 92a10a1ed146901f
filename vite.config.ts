import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    sourcemap: true,
    // The session view (app/Workspace.tsx) is a lazy chunk, and Recharts and React Flow get
    // chunks of their own, so that no chunk passes Vite's default 500 kB warning (kept, not
    // raised: a chunk that grows past it should be looked at). Each group takes its
    // package's dependencies with it, except those the first load already holds: the
    // `vendor` group claims those first (highest priority), so no lazy chunk is imported by
    // the entry and no two chunks import each other (a cycle of chunks is evaluated in the
    // wrong order). First-load figures: docs/dashboard.md, "What loads when".
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /node_modules[\\/]/, tags: ['$initial'], priority: 3 },
            { name: 'recharts', test: /node_modules[\\/]recharts[\\/]/, priority: 2 },
            { name: 'react-flow', test: /node_modules[\\/]@xyflow[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    // `npm run dev` proxies the relay of a running `context-health serve` (default port 8787)
    proxy: { '/api': { target: 'http://127.0.0.1:8787', ws: true } },
  },
  test: {
    include: ['src/**/*.test.ts', 'app/**/*.test.{ts,tsx}', 'bench/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // every test's temporary files go into one folder of the run's, removed when it ends
    globalSetup: ['test/run/globalSetup.ts'],
  },
});
