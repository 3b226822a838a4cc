import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startFakeModels } from '../helpers/fake-models.js';
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
      const out = execFileSync(
        process.execPath,
        ['--import', './test/main/fake-electron/register.mjs', 'dist/main/index.mjs'],
        {
          encoding: 'utf8',
          env: { ...process.env, FAKE_ELECTRON_USER_DATA: userData },
          timeout: 30_000,
        },
      );
      const lines = out.trim().split('\n');
      expect(JSON.parse(lines.find((l) => l.startsWith('window '))!.slice(7))).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        preload: expect.stringMatching(/dist\/preload\/index\.cjs$/),
      });
      expect(lines).toContain('ipc "callbench:invoke"');
      expect(lines.find((l) => l.startsWith('load '))).toMatch(/dist\/renderer\/index\.html"$/);
      expect(lines.slice(-2)).toEqual(['quit-deferred true', 'exit 0']);
      expect(existsSync(join(userData, 'callbench.db'))).toBe(true);
      expect(existsSync(join(userData, 'desktop-preferences.json'))).toBe(true);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  }, 60_000);

  it('a damaged store: one clear line and a dialog, exit 1, no stack', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desktop'], { stdio: 'ignore' });
    const userData = tempDir();
    writeFileSync(join(userData, 'callbench.db'), 'not a database');
    try {
      const run = promisify(execFile)(
        process.execPath,
        ['--import', './test/main/fake-electron/register.mjs', 'dist/main/index.mjs'],
        { env: { ...process.env, FAKE_ELECTRON_USER_DATA: userData }, timeout: 30_000 },
      );
      const failed = (await run.then(
        () => null,
        (err: unknown) => err,
      )) as { code: number; stdout: string; stderr: string } | null;
      expect(failed).not.toBeNull();
      expect(failed!.code).toBe(1);
      const errors = failed!.stderr.trim().split('\n');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^Callbench could not start: .*callbench\.db/);
      expect(failed!.stdout).toContain('[dialog] Callbench could not start:');
      expect(failed!.stdout).toContain('exit 1');
      // Refused, never replaced.
      expect(readFileSync(join(userData, 'callbench.db'), 'utf8')).toBe('not a database');
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
  }, 60_000);

  it('runs a simulation whose model calls go to the bundled model thread', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desktop'], { stdio: 'ignore' });
    // The caller's model and the in-house agent answer in turn from the one scripted fake.
    const models = await startFakeModels();
    const usage = { prompt_tokens: 4, completion_tokens: 3 };
    for (const line of [
      'Where is order A1?',
      'It shipped yesterday.',
      'When does it arrive?',
      'Tomorrow before noon.',
    ])
      models.openai(line, [], usage);
    const userData = tempDir();
    try {
      // The model server lives in this process: the app runs beside it, not blocking it.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', './test/main/fake-electron/register.mjs', 'dist/main/index.mjs'],
        {
          encoding: 'utf8',
          timeout: 60_000,
          env: {
            ...process.env,
            FAKE_ELECTRON_USER_DATA: userData,
            FAKE_ELECTRON_DRIVE: 'test/main/fake-electron/simulate.mjs',
            FAKE_MODEL_URL: models.url,
          },
        },
      );
      const simulation = JSON.parse(
        stdout
          .split('\n')
          .find((l) => l.startsWith('simulation '))!
          .slice(11),
      );
      expect(simulation).toMatchObject({
        status: 'completed',
        end_reason: 'max_turns',
        usage: { llm_calls: 2, input_tokens: 8, output_tokens: 6 },
      });
      // The thread's file carries its SDKs: nothing for it to resolve from node_modules inside the app's archive.
      expect(readFileSync('dist/main/model-worker.mjs', 'utf8')).not.toMatch(
        /from\s*["'](openai|@anthropic-ai\/sdk)["']/,
      );
      expect(
        simulation.turns.map((t: { role: string; text: string }) => `${t.role}: ${t.text}`),
      ).toEqual([
        'caller: Where is order A1?',
        'agent: It shipped yesterday.',
        'caller: When does it arrive?',
        'agent: Tomorrow before noon.',
      ]);
      // The caller's lines came through the SDK, with the caller role's key.
      expect(
        models.requests.filter((r) => r.headers.authorization === 'Bearer caller-key'),
      ).toHaveLength(2);
    } finally {
      await models.stop();
      rmSync(userData, { recursive: true, force: true });
    }
  }, 90_000);
});
