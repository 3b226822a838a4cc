import { defineConfig } from '@playwright/test';

/**
 * The real interface, end to end, in Debian's Chromium (never a downloaded browser), against
 * `serve` on a temporary data dir with fake outside systems on 127.0.0.1.
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.e2e.ts',
  outputDir: 'test/e2e/output/results',
  timeout: 120_000,
  workers: 1,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    },
    viewport: { width: 1400, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'off',
  },
});
