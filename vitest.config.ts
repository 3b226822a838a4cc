import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Every run in its own order (the seed is printed; replay with --sequence.seed=N): a test that
    // leans on another's leftovers fails here, not later.
    sequence: { shuffle: { files: true, tests: true } },
    setupFiles: ['test/setup/temp-dirs.ts'],
    globalSetup: ['test/setup/no-leftovers.ts', 'test/setup/postgres-store.ts'],
  },
});
