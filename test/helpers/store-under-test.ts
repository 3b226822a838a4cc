import Database from 'better-sqlite3';
import { basename, join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { ensureDatabase } from './postgres.js';
import { ALLOW_LOOPBACK, TEAM_KEY } from './team.js';
import { dataDirSecretBox, teamSecretBox } from '../../src/secrets.js';
import type { SecretBox } from '../../src/kernel/secret-box.js';
import type { Store } from '../../src/store/index.js';
import { numericTypes } from '../../src/store/sql/connect.js';

/** Whether this run's stores are on PostgreSQL (CALLBENCH_TEST_STORE=postgres). */
export const onPostgres = (): boolean => inject('postgresAdminUrl') !== null;

const databaseName = (dataDir: string): string =>
  `cb_${basename(dataDir)
    .replace(/[^A-Za-z0-9]/g, '_')
    .toLowerCase()}`;

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('postgresAdminUrl')! });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * The engine options that put a data dir's store where this run keeps stores: nothing on SQLite;
 * on PostgreSQL a database of its own, named after the data dir, so that a restart on the same
 * data dir finds the same database (and loopback let through the team server's outbound guard).
 */
export async function storeOptions(
  dataDir: string,
): Promise<{ databaseUrl?: string; secretKey?: string; outboundAllow?: string[] }> {
  const adminUrl = inject('postgresAdminUrl');
  if (adminUrl === null) return {};
  const databaseUrl = await ensureDatabase(adminUrl, databaseName(dataDir));
  // An engine on PostgreSQL is a team server: its fakes on loopback must be let through.
  return { databaseUrl, secretKey: TEAM_KEY, outboundAllow: ALLOW_LOOPBACK };
}

/** Drops a data dir's database, if this run made one. */
export async function dropStore(dataDir: string): Promise<void> {
  if (!onPostgres()) return;
  await admin((client) =>
    client.query(`DROP DATABASE IF EXISTS ${databaseName(dataDir)} WITH (FORCE)`),
  );
}

/** Where a test server's store is, for tests that look at what is stored, byte for byte. */
export interface StoredIn {
  dialect: 'sqlite' | 'postgres';
  /**
   * The running engine's own SQLite connection (SQLite runs): writes through it reach the
   * engine's read cache as its own writes do.
   */
  sqlite?: () => Database.Database;
  /** The SQLite file, opened for each statement when no engine runs on it. */
  sqliteFile?: string;
  /** The database URL (PostgreSQL runs). */
  databaseUrl?: string;
}

/** The store of a data dir on which no engine is running (to plant what a crash leaves). */
export async function storedAt(dataDir: string): Promise<StoredIn> {
  const { databaseUrl } = await storeOptions(dataDir);
  return databaseUrl
    ? { dialect: 'postgres', databaseUrl }
    : { dialect: 'sqlite', sqliteFile: join(dataDir, 'callbench.db') };
}

function onSqlite<R>(where: StoredIn, text: string, params: unknown[]): R[] {
  const db = where.sqlite?.() ?? new Database(where.sqliteFile);
  try {
    const stmt = db.prepare(text);
    if (stmt.reader) return stmt.all(...params) as R[];
    stmt.run(...params);
    return [];
  } finally {
    if (!where.sqlite) db.close();
  }
}

/**
 * Runs one SQL statement on a test server's store, SQLite or PostgreSQL alike (`?` placeholders),
 * and answers its rows. Tests use it to see what is stored (secrets sealed, hashes not keys) and to
 * plant rows the API cannot make; everything else goes through operations.
 */
export async function storedRows<R = Record<string, unknown>>(
  where: StoredIn,
  text: string,
  params: unknown[] = [],
): Promise<R[]> {
  if (where.dialect === 'sqlite') return onSqlite<R>(where, text, params);
  let n = 0;
  // Counts and sums read as numbers, as the store's own pool reads them (and as SQLite answers).
  const client = new pg.Client({ connectionString: where.databaseUrl, types: numericTypes });
  await client.connect();
  try {
    const result = await client.query(
      text.replace(/\?/g, () => `$${++n}`),
      params,
    );
    return result.rows as R[];
  } finally {
    await client.end();
  }
}

/** The secret box a test server seals with: its data dir's key, or the team server's key. */
export async function secretsOf(where: {
  dataDir: string;
  stored: StoredIn;
  engine: { store: Store };
}): Promise<SecretBox> {
  return where.stored.dialect === 'postgres'
    ? teamSecretBox(TEAM_KEY, where.engine.store)
    : dataDirSecretBox(where.dataDir, where.engine.store);
}
