// End-to-end tests in headless Chromium against the built dashboard (dist/) served by the
// real relay (`context-health serve --port 0`), started once in global setup. Chromium is
// the system's (Debian's `chromium`; CHROMIUM_PATH overrides): `npx playwright install`
// is not needed.
import { defineConfig } from '@playwright/test';

const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

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
