import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { startServer, tempDir } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';

/** A data dir whose store holds sealed secrets: a tool's bearer token and the SMTP password. */
async function dirWithSecrets(): Promise<string> {
  const dir = tempDir();
  const s = await startServer({ dataDir: dir });
  const tool = await s.call('POST', '/v1/tools', {
    name: 'billing',
    type: 'api',
    config: {
      url: 'http://127.0.0.1:1/x',
      auth: { type: 'bearer', token: 'tok_0123456789abcdef' },
    },
  });
  expect(tool.status, JSON.stringify(tool.body)).toBe(201);
  await s.stop();
  return dir;
}

const startIn = async (dir: string): Promise<Error | null> => {
  const engine = createEngine({ dataDir: dir });
  try {
    await engine.start();
    return null;
  } catch (err) {
    return err as Error;
  } finally {
    await engine.stop();
  }
};

// Bounded: spawnSync blocks this worker, so a CLI stuck at its prompt would stop vitest's own
// timeout from firing; killed, it fails on its output instead.
const cli = (args: string[], input = '') =>
  spawnSync(process.execPath, ['src/cli/callbench.mjs', ...args], {
    encoding: 'utf8',
    input,
    timeout: 30_000,
  });

// A data dir's key file is the desktop's; a team server's key comes from its environment
// (test/cli/team-server-start.test.ts).
describe.skipIf(onPostgres())('the secret key of a data dir', () => {
  it('a missing key with sealed secrets stored: start refused, naming the file and both ways out', async () => {
    const dir = await dirWithSecrets();
    const keyFile = join(dir, 'secret.key');
    const key = readFileSync(keyFile);
    rmSync(keyFile);
    const refused = await startIn(dir);
    expect(refused?.message).toContain(keyFile);
    expect(refused?.message).toContain('is missing');
    expect(refused?.message).toContain('callbench secrets reset');
    expect(refused?.message).toContain('billing');
    // Never silently replaced: no new key was written.
    expect(existsSync(keyFile)).toBe(false);
    // Restoring the file is the first way out.
    writeFileSync(keyFile, key);
    expect(await startIn(dir)).toBeNull();
  });

  it('a key that does not open the stored secrets is refused (the stored key check)', async () => {
    const dir = await dirWithSecrets();
    writeFileSync(join(dir, 'secret.key'), Buffer.alloc(32, 7).toString('base64'));
    expect((await startIn(dir))?.message).toMatch(/does not open the sealed secrets/);
  });

  it('without sealed secrets, a missing key is simply made again', async () => {
    const dir = tempDir();
    expect(await startIn(dir)).toBeNull();
    rmSync(join(dir, 'secret.key'));
    expect(await startIn(dir)).toBeNull();
    expect(existsSync(join(dir, 'secret.key'))).toBe(true);
  });

  it('`callbench secrets reset` lists what to enter again, asks, and deletes only the sealed values', async () => {
    const dir = await dirWithSecrets();
    rmSync(join(dir, 'secret.key'));

    const declined = cli(['secrets', 'reset', '--data-dir', dir], 'n\n');
    expect(declined.stdout, declined.stderr).toContain('tool billing');
    expect(declined.stdout).toContain('Nothing changed');
    expect(declined.status).toBe(1);
    expect(await startIn(dir)).not.toBeNull();

    const confirmed = cli(['secrets', 'reset', '--data-dir', dir], 'y\n');
    expect(confirmed.status, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toMatch(/Deleted sealed secrets/);
    expect(await startIn(dir)).toBeNull();

    // The tool is still there, without its token, and the engine serves.
    const s = await startServer({ dataDir: dir });
    const got = await s.call('GET', '/v1/tools/billing');
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const tool = got.body;
    expect(JSON.stringify(tool)).toContain('billing');
    expect(JSON.stringify(tool)).not.toContain('tok_');
    await s.stop();
    expect(readdirSync(dir)).toContain('secret.key');
    // Two CLI processes, each starting Node, tsx and the store (about a second of CPU each), and
    // four engine starts in this one: on a busy two-core machine that can pass vitest's 20 s.
  }, 60_000);
});
