// End-to-end tests in headless Chromium against the built dashboard (dist/) served by the
// real relay (`context-health serve --port 0`), started once in global setup. Chromium is
// the system's (Debian's `chromium`; CHROMIUM_PATH overrides): `npx playwright install`
// is not needed.
import { defineConfig } from '@playwright/test';
import fs from 'node:fs';

/** The same search as scripts/ensure-tools.mjs (which `npm run test:e2e` runs first, installing Debian's package when it can). */
function chromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return fromEnv;
  const found = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'].find((p) => fs.existsSync(p));
  if (found === undefined) {
    throw new Error(
      'No Chromium found. On Debian/Ubuntu: apt-get install -y chromium. Elsewhere: install Chrome or Chromium and set CHROMIUM_PATH=/path/to/chrome.',
    );
  }
  return found;
}

const executablePath = chromium();

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  outputDir: 'test-results',
  use: {
    // set by global setup (the relay's ephemeral port); workers inherit it
    baseURL: process.env.CH_BASE_URL,
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath },
    viewport: { width: 1440, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
