import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  worker: { format: 'es' },
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1500 },
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
  },
});
