/**
 * Playwright end-to-end tests (test/e2e/) in Debian's Chromium against browser mode: each
 * spec starts `node dist/electron/serve.cjs --port 0 --db <tmp>` itself (`npm test` builds
 * first). Never `npx playwright install`: the browser comes from apt (TOOLCHAIN.md).
 */
import { defineConfig } from '@playwright/test';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Without these Chromium opens many refused connections on a machine without internet.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'test/e2e',
  // Screenshots of each screen go to test-results/screenshots/ (see test/e2e/studio.ts).
  outputDir: 'test-results/artifacts',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // The machine has 2 cores shared by everyone; the specs each start their own server.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]] : [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    colorScheme: 'dark',
    acceptDownloads: true,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    },
  },
});
