import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';

/**
 * One schema change: its number, its name, and the SQL that makes it on each database. The two
 * texts make the same tables, columns, constraints and indexes; each database records the
 * checksum of its own text.
 */
export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

export type MigrationDialect = 'sqlite' | 'postgres';

/** A row of schema_migrations: a migration as a store recorded it. */
export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

/** What a store records of a migration: the sha256 of the text its own database ran. */
export const migrationChecksum = (m: Migration, dialect: MigrationDialect): string =>
  createHash('sha256').update(m[dialect]).digest('hex');

/**
 * Checks a store's recorded history against the migrations this build knows, and answers the ones
 * still to apply, in order. A store written by a newer build, or one whose history differs from
 * ours, is refused: using it silently could lose the newer build's data.
 */
export function pendingMigrations(
  applied: AppliedMigration[],
  known: Migration[],
  dialect: MigrationDialect,
): Migration[] {
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
    if (migrationChecksum(mine, dialect) !== row.checksum) {
      throw new AppError(
        'store_mismatch',
        500,
        `Schema version ${row.version} of this data store differs from this build's ("${row.name}"). ` +
          'It was written by a different build; refusing to use it.',
      );
    }
  }
  return known
    .filter((m) => !applied.some((a) => a.version === m.version))
    .sort((a, b) => a.version - b.version);
}
