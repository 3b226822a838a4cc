import { join } from 'node:path';
import { openDatabase } from './db.js';
import { createStore, type Store } from './index.js';
import { migrate } from './migrate.js';
import { postgresDatabase, sqliteDatabase } from './sql/connect.js';
import { migratePostgres } from './sql/migrate-postgres.js';
import { databaseStartError } from './sql/postgres-errors.js';

export interface OpenStoreOptions {
  /** The data dir: its `callbench.db` is the store, its `backups` folder gets pre-upgrade copies. */
  dataDir: string;
  /** A team server's PostgreSQL (`postgres://...`): the store lives there instead. */
  databaseUrl?: string;
  /** Tests: a call on the outer store inside a transaction fails at once. */
  checkTransactions?: boolean;
  /** Where a PostgreSQL connection that broke while idle is reported. */
  onIdleError?: (err: Error) => void;
}

/** Opens and migrates the store: the data dir's SQLite file, or a team server's PostgreSQL. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const { checkTransactions } = options;
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    try {
      // Under an advisory lock: of servers starting together, one migrates, the others wait.
      await migratePostgres(url);
    } catch (err) {
      throw databaseStartError(url, err);
    }
    return createStore(postgresDatabase(url, { onIdleError: options.onIdleError }), {
      checkTransactions,
    });
  }
  const db = openDatabase(join(options.dataDir, 'callbench.db'));
  try {
    migrate(db, join(options.dataDir, 'backups'));
    return createStore(sqliteDatabase(db), { checkTransactions });
  } catch (err) {
    db.close();
    throw err;
  }
}
