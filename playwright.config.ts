import { defineConfig } from '@playwright/test';

// Browser tests use the system Chromium (Debian's /usr/bin/chromium here); Playwright never downloads one.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 180_000, // a loaded machine: sailor serve alone may take a minute to start in a beforeAll
  expect: { timeout: 30_000 }, // a loaded machine (CI beside other work): an assertion that holds returns at once
  workers: 1,
  reporter: [['list']],
  outputDir: 'test-results/playwright',
  projects: [
    {
      name: 'web',
      testMatch: /web\..*spec\.ts/,
      use: { browserName: 'chromium', launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS }, viewport: { width: 1400, height: 860 } },
    },
    { name: 'electron', testMatch: /electron\.spec\.ts/ },
  ],
});
