import pg from 'pg';
import { migrations, type Migration } from '../migrations/index.js';
import {
  migrationChecksum,
  pendingMigrations,
  type AppliedMigration,
} from '../migrations/migration.js';

/** The advisory lock's name: servers starting together on one database migrate it once. */
const MIGRATE_LOCK = 'callbench-migrate';

/**
 * Applies the numbered migrations this build knows to a PostgreSQL store, each in its own
 * transaction, recorded with a checksum of its PostgreSQL text. A store written by a newer build,
 * or one whose history differs from ours, is refused (pendingMigrations). Under an advisory lock:
 * of servers starting together, one migrates and the others wait, then find nothing to do. No
 * backup is made here: teams back their server up with pg_dump. Errors propagate unchanged.
 */
export async function migratePostgres(
  url: string,
  known: Migration[] = migrations,
  now = new Date(),
): Promise<{ applied: number[] }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection that breaks mid-query fails that query; without a listener it would also end
  // the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATE_LOCK]);
    try {
      return { applied: await migrateLocked(client, known, now) };
    } finally {
      // Ending the session releases the lock too, so a failed unlock changes nothing.
      await client
        .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATE_LOCK])
        .catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Checks the recorded history and applies what is pending; the caller holds the lock. */
async function migrateLocked(client: pg.Client, known: Migration[], now: Date): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version BIGINT PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const { rows } = await client.query<{ version: string; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
  );
  // This client has the default parsers: a bigint arrives as a string.
  const applied: AppliedMigration[] = rows.map((r) => ({
    version: Number(r.version),
    name: r.name,
    checksum: r.checksum,
  }));
  const pending = pendingMigrations(applied, known, 'postgres');
  for (const m of pending) {
    await client.query('BEGIN');
    try {
      // Without parameters the text goes as a simple query, so it may hold several statements.
      await client.query(m.postgres);
      await client.query(
        'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
        [m.version, m.name, migrationChecksum(m, 'postgres'), now.toISOString()],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
  return pending.map((m) => m.version);
}
