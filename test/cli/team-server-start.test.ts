import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/sql/migrate-postgres.js';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import { serveOnce } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';
import { ALLOW_LOOPBACK_ENV } from '../helpers/team.js';

const KEY = 'team-key-0123456789-0123456789-0123456789';
const PASSWORD = 'pg-test-pass';

/** The CLI with only the environment given (no CALLBENCH_* of the run leaks in). */
const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['src/cli/callbench.mjs', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tempDir(), ...env },
    timeout: 30_000,
  });

/** The one line a refused start prints, and its exit status. */
const refusal = (r: ReturnType<typeof cli>) => ({
  status: r.status,
  lines: r.stderr.trim().split('\n'),
});

describe.skipIf(onPostgres())('a team server that cannot start says why in one line', () => {
  let server: Postgres;
  let n = 0;
  /** A new empty database on the test's server. */
  const database = () => ensureDatabase(server.url, `team_start_${++n}`);
  beforeAll(async () => {
    server = await startPostgres(PASSWORD);
  });
  afterAll(() => server?.stop());

  it('nothing listening at the address', () => {
    const r = refusal(
      cli(['serve', '--database', 'postgres://cb:secret-pw@127.0.0.1:1/cb'], {
        CALLBENCH_SECRET_KEY: KEY,
      }),
    );
    expect(r.status).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /Cannot use the database at postgres:\/\/cb:\*\*\*\*@127\.0\.0\.1:1\/cb: nothing is listening/,
    );
  });

  it('a wrong password, never echoed', async () => {
    const url = new URL(await database());
    url.password = 'not-the-password';
    const r = refusal(cli(['serve', '--database', url.toString()], { CALLBENCH_SECRET_KEY: KEY }));
    expect(r.status).toBe(1);
    expect(r.lines).toEqual([expect.stringContaining('the password was refused')]);
    expect(r.lines[0]).not.toContain('not-the-password');
  });

  it('a database written by a newer Callbench', async () => {
    const url = await database();
    await migratePostgres(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "INSERT INTO schema_migrations VALUES (42, 'from the future', 'abc', '2030-01-01T00:00:00Z')",
    );
    await client.end();
    const r = refusal(cli(['serve', '--database', url], { CALLBENCH_SECRET_KEY: KEY }));
    expect(r.status).toBe(1);
    expect(r.lines).toEqual([expect.stringContaining('written by a newer Callbench')]);
  });

  it('a missing or short secret key; a URL that is not PostgreSQL', async () => {
    const url = await database();
    const missing = refusal(cli(['serve', '--database', url]));
    expect(missing.status).toBe(1);
    expect(missing.lines).toEqual([expect.stringContaining('needs CALLBENCH_SECRET_KEY')]);
    const short = refusal(cli(['serve', '--database', url], { CALLBENCH_SECRET_KEY: 'short' }));
    expect(short.lines).toEqual([expect.stringContaining('at least 32')]);
    const mysql = refusal(cli(['serve'], { CALLBENCH_DATABASE_URL: 'mysql://x@127.0.0.1/db' }));
    expect(mysql.status).toBe(2);
    expect(mysql.lines[0]).toContain('must be a PostgreSQL URL');
  });

  it('an entry of CALLBENCH_OUTBOUND_ALLOW that is neither a CIDR nor a host name', () => {
    const r = refusal(
      cli(['serve', '--database', 'postgres://cb:pw@127.0.0.1:1/cb'], {
        CALLBENCH_SECRET_KEY: KEY,
        CALLBENCH_OUTBOUND_ALLOW: '10.0.0.0/8, crm.internal, 10.0.0.0/33',
      }),
    );
    expect(r.status).toBe(2);
    expect(r.lines).toEqual([
      'callbench: CALLBENCH_OUTBOUND_ALLOW: "10.0.0.0/33" is neither a CIDR (10.0.0.0/8, fd00::/8), an address nor a host name',
    ]);
  });

  it('starts with its key; another key is refused, since the secrets are sealed with the first', async () => {
    const url = await database();
    const out = await serveOnce(url, { CALLBENCH_SECRET_KEY: KEY, ...ALLOW_LOOPBACK_ENV });
    expect(out).toContain('Callbench engine (team database postgres://postgres:****@');
    expect(out).not.toContain(PASSWORD);
    const other = refusal(
      cli(['serve', '--database', url], { CALLBENCH_SECRET_KEY: `${KEY}-but-another` }),
    );
    expect(other.status).toBe(1);
    expect(other.lines).toEqual([expect.stringContaining('is not the key')]);
  });
});
