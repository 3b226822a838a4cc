import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.js';
import { migrations, type Migration } from './migrations/index.js';
import {
  migrationChecksum,
  pendingMigrations,
  type AppliedMigration,
} from './migrations/migration.js';

export interface MigrationResult {
  applied: number[];
  backup: string | null;
}

/**
 * Applies the numbered migrations this build knows to a SQLite store, each in its own transaction,
 * recorded with a checksum of its SQLite text. A store written by a newer build, or one whose
 * history differs from ours, is refused (pendingMigrations). A non-empty store is copied to the
 * backup dir before it is upgraded.
 */
export function migrate(
  db: Db,
  backupDir: string,
  known: Migration[] = migrations,
  now = new Date(),
): MigrationResult {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = db
    .prepare('SELECT version, name, checksum FROM schema_migrations ORDER BY version')
    .all() as AppliedMigration[];
  const pending = pendingMigrations(applied, known, 'sqlite');
  if (pending.length === 0) return { applied: [], backup: null };

  let backup: string | null = null;
  if (applied.length > 0) {
    mkdirSync(backupDir, { recursive: true });
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    backup = join(backupDir, `callbench-v${applied[applied.length - 1]!.version}-${stamp}.db`);
    db.prepare('VACUUM INTO ?').run(backup);
  }

  const record = db.prepare(
    'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)',
  );
  for (const m of pending) {
    db.transaction(() => {
      db.exec(m.sqlite);
      record.run(m.version, m.name, migrationChecksum(m, 'sqlite'), now.toISOString());
    })();
  }
  return { applied: pending.map((m) => m.version), backup };
}
