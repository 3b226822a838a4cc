import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';

/** The CLI with only the environment given (no CALLBENCH_* of the run leaks in). */
const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, ['src/cli/callbench.mjs', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tempDir() },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

/**
 * `keys` and `workspaces` run on the store and the access operations alone (src/cli/access-store.ts),
 * not a whole engine: they still make a new store as the engine would, on either kind of store.
 */
describe('the short commands on the store alone', () => {
  it('on a new data dir: made only for its owner, with its first workspace and no first key', () => {
    const dir = join(tempDir(), 'new');
    expect(cli(['workspaces', '--data-dir', dir])).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^ws_\S+\tDefault workspace\t/),
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(cli(['keys', 'list', '--data-dir', dir])).toMatchObject({ code: 0, out: '' });
  });

  describe.skipIf(onPostgres())('on a team database', () => {
    let server: Postgres;
    beforeAll(async () => {
      server = await startPostgres('short-pass');
    });
    afterAll(() => server.stop());

    it('keys and workspaces act on the database, with no secret key needed', async () => {
      const url = await ensureDatabase(server.url, 'short_commands');
      const store = ['--database', url, '--data-dir', tempDir()];
      const made = cli(['keys', 'create', '--label', 'ci', ...store]);
      expect(made).toMatchObject({ code: 0, out: expect.stringMatching(/^cbk_\S+\n$/) });
      expect(cli(['keys', 'list', ...store]).out).toMatch(/^key_\S+\tcbk_\S+…\tci\t\S+\tactive\n$/);
      expect(cli(['workspaces', 'create', 'Team', 'B', ...store])).toMatchObject({ code: 0 });
      expect(
        cli(['workspaces', ...store])
          .out.trim()
          .split('\n')
          .map((l) => l.split('\t')[1]),
      ).toEqual(['Default workspace', 'Team B']);
    }, 60_000);
  });
});
