import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { serveOnce } from '../helpers/cli.js';
import { onPostgres } from '../helpers/store-under-test.js';

const INIT_SCRIPT = 'docker/postgres-init/10-callbench-role.sh';
const SUPERUSER_PASSWORD = 'pg-super-pass';
const APP_PASSWORD = 'app-role-pass-0123456789';
const SECRET_KEY = 'team-key-0123456789-0123456789-0123456789';

/** The init script as the postgres image runs it: as the superuser, here over TCP to the test server. */
const runInit = (server: Postgres, env: Record<string, string>) =>
  spawnSync('sh', [INIT_SCRIPT], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      POSTGRES_USER: 'postgres',
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      PGPASSWORD: SUPERUSER_PASSWORD,
      ...env,
    },
  });

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('docker-compose.yml: no default password', () => {
  const compose = readFileSync('docker-compose.yml', 'utf8');

  it('needs POSTGRES_PASSWORD and the role password, with no default for either', () => {
    expect(compose).toContain('${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}');
    expect(compose).toContain('${CALLBENCH_DB_PASSWORD:?set CALLBENCH_DB_PASSWORD');
    expect(compose).not.toMatch(/PASSWORD:-/);
    // The app connects as the role the init script makes, not as the image's superuser.
    expect(compose).toContain(
      'postgres://callbench:${CALLBENCH_DB_PASSWORD:?set CALLBENCH_DB_PASSWORD}@postgres:5432/callbench',
    );
    expect(compose).not.toMatch(/POSTGRES_USER:\s*callbench/);
    expect(compose).toContain(`./docker/postgres-init:/docker-entrypoint-initdb.d:ro`);
  });
});

describe.skipIf(onPostgres())('the database role the compose init script makes', () => {
  let server: Postgres;
  beforeAll(async () => {
    server = await startPostgres(SUPERUSER_PASSWORD);
  });
  afterAll(() => server?.stop());

  it('refuses to run without the role password', () => {
    const r = runInit(server, {});
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('set CALLBENCH_DB_PASSWORD');
  });

  it('makes a role that is no superuser and owns the database; Callbench starts as it', async () => {
    const r = runInit(server, { CALLBENCH_DB_PASSWORD: APP_PASSWORD });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const url = `postgres://callbench:${APP_PASSWORD}@127.0.0.1:${server.port}/callbench`;
    const [role] = await query<Record<string, boolean>>(
      url,
      'SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    expect(role).toEqual({
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolreplication: false,
      rolbypassrls: false,
    });
    const [db] = await query<{ owner: string; collate: string }>(
      url,
      "SELECT pg_get_userbyid(datdba) AS owner, datcollate AS collate FROM pg_database WHERE datname = 'callbench'",
    );
    expect(db).toEqual({ owner: 'callbench', collate: 'C' });

    // The schema is made (and later upgraded) by the role itself: no superuser right is needed.
    const out = await serveOnce(url, { CALLBENCH_SECRET_KEY: SECRET_KEY });
    expect(out).toContain('Created your first API key');
    const tables = await query<{ owner: string }>(
      url,
      "SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(tables).toEqual([{ owner: 'callbench' }]);
  });
});
