import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';

/**
 * The built desktop bundle (what `npm start` and the installers run), started under plain Node
 * with a stand-in `electron` module: the engine starts on the user data dir, the window is the
 * secure one, the one IPC channel is registered, the renderer is loaded, and quitting stops cleanly.
 */
describe('the built desktop bundle', () => {
  it('starts the engine, opens the window, and exits cleanly when asked to quit', () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desktop'], { stdio: 'ignore' });
    const userData = tempDir();
    try {
      const out = execFileSync(process.execPath, ['--import', './test/main/fake-electron/register.mjs', 'dist/main/index.mjs'], {
        encoding: 'utf8', env: { ...process.env, FAKE_ELECTRON_USER_DATA: userData }, timeout: 30_000,
      });
      const lines = out.trim().split('\n');
      expect(JSON.parse(lines.find((l) => l.startsWith('window '))!.slice(7))).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: expect.stringMatching(/dist\/preload\/index\.cjs$/) });
      expect(lines).toContain('ipc "callbench:invoke"');
      expect(lines.find((l) => l.startsWith('load '))).toMatch(/dist\/renderer\/index\.html"$/);
      expect(lines.slice(-2)).toEqual(['quit-deferred true', 'exit 0']);
      expect(existsSync(join(userData, 'callbench.db'))).toBe(true);
      expect(existsSync(join(userData, 'desktop-preferences.json'))).toBe(true);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  }, 60_000);
});
