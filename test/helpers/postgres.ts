import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface Postgres {
  url: string;
  port: number;
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (!dir)
    throw new Error('PostgreSQL is not installed (Debian package postgresql; .ci/run installs it)');
  return dir;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

/**
 * A throwaway PostgreSQL cluster on 127.0.0.1, password auth, in a temp dir. PostgreSQL refuses to
 * run as root, so as root it runs as the `postgres` user the Debian package creates.
 */
export async function startPostgres(password = 'pg-test-pass'): Promise<Postgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'callbench-pg-'));
  const asRoot = userInfo().uid === 0;
  const run = (cmd: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, cmd),
      asRoot ? ['-u', 'postgres', '--', join(bin, cmd), ...args] : args,
      { stdio: 'pipe' },
    );
  writeFileSync(join(dir, 'pw'), password);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
    chownSync(join(dir, 'pw'), uid, gid);
  }
  chmodSync(dir, 0o700);
  run('initdb', [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '-A',
    'scram-sha-256',
    `--pwfile=${join(dir, 'pw')}`,
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const port = await freePort();
  run('pg_ctl', [
    '-D',
    join(dir, 'data'),
    '-w',
    '-l',
    join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    stop() {
      try {
        run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A database on the server of `adminUrl`, made when missing, and its URL. The C collation sorts
 * text by code point, as SQLite does, so every ordered answer is the same on both stores.
 */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount)
      await client.query(
        `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
      );
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A role that can log in and nothing more (no superuser, no predefined roles) on the server of
 * `adminUrl`, given `grants` (statements run as the admin, e.g. `GRANT SELECT ON t TO name`), and
 * a URL that connects as it. Database tools refuse privileged roles, so their tests use one.
 */
export async function createRole(
  adminUrl: string,
  name: string,
  grants: string[] = [],
): Promise<string> {
  const password = `${name}-pass`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password}'`);
    for (const grant of grants) await client.query(grant);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.username = name;
  url.password = password;
  return url.toString();
}
