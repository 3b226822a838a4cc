import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.js';
import type { Db } from './db.js';
import { migrations, type Migration } from './migrations/index.js';

const checksum = (m: Migration): string => createHash('sha256').update(m.sql).digest('hex');

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

export interface MigrationResult {
  applied: number[];
  backup: string | null;
}

/**
 * Applies the numbered migrations this build knows, each in its own transaction, recorded with a
 * checksum. A store written by a newer build, or one whose history differs from ours, is refused:
 * using it silently could lose the newer build's data.
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
    .all() as AppliedRow[];
  const latestKnown = known.reduce((max, m) => Math.max(max, m.version), 0);

  for (const row of applied) {
    const mine = known.find((m) => m.version === row.version);
    if (!mine) {
      throw new AppError(
        'store_too_new',
        500,
        `This data store was written by a newer Callbench (schema version ${row.version}, "${row.name}"); ` +
          `this build knows schema versions up to ${latestKnown}. Update Callbench, or use another data dir.`,
      );
    }
    if (checksum(mine) !== row.checksum) {
      throw new AppError(
        'store_mismatch',
        500,
        `Schema version ${row.version} of this data store differs from this build's ("${row.name}"). ` +
          'It was written by a different build; refusing to use it.',
      );
    }
  }

  const pending = known
    .filter((m) => !applied.some((a) => a.version === m.version))
    .sort((a, b) => a.version - b.version);
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
      db.exec(m.sql);
      record.run(m.version, m.name, checksum(m), now.toISOString());
    })();
  }
  return { applied: pending.map((m) => m.version), backup };
}
