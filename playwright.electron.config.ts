import { defineConfig } from '@playwright/test';

/** `npm run test:electron`: the real desktop app, on machines that have the Electron binary. Not part of `npm test`. */
export default defineConfig({
  testDir: 'test/electron',
  testMatch: '**/*.electron.ts',
  outputDir: 'test/e2e/output/electron',
  timeout: 60_000,
  workers: 1,
});
