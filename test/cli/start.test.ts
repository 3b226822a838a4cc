import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));

describe('npm start', () => {
  // Where the Electron binary is installed, this test has nothing to show.
  it.skipIf(existsSync(join(electronDir, 'path.txt')))(
    'without an Electron binary that can be fetched: one clear line, exit 1, no stack',
    () => {
      const run = spawnSync(process.execPath, ['scripts/start.mjs'], {
        encoding: 'utf8',
        // A download host that refuses at once, on this machine.
        env: {
          ...process.env,
          ELECTRON_MIRROR: 'http://127.0.0.1:9/',
        },
        timeout: 120_000,
      });
      expect(run.status).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        /^callbench: the Electron binary could not be downloaded.*npm run serve/,
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
      // Besides the build's progress lines and the fetch announced, nothing: no error dump.
      expect(lines.filter((l) => !/^(built |Fetching the Electron binary)/.test(l))).toHaveLength(
        1,
      );
      expect(run.stderr).not.toMatch(/Error:/);
    },
    150_000,
  );
});
