import { createAgentStore } from './agents.js';
import { createAlertStore } from './alerts.js';
import { createAlertEventStore } from './alert-events.js';
import { createSealedStore } from './sealed.js';
import { createSettingsStore } from './settings.js';
import { createSimulationStore } from './simulations.js';
import { createCallStore } from './calls.js';
import { createCallEvaluationStore } from './call-evaluations.js';
import { createComparisonReads } from './comparison-reads.js';
import { createComparisonStore } from './comparisons.js';
import { createCredentialStore } from './credentials.js';
import { createExperimentStore } from './experiments.js';
import type { Db } from './db.js';
import { createPersonaStore } from './personas.js';
import { createReadCache, noReadCache, type ReadCache } from './read-cache.js';
import { createRecordingBlobStore } from './recording-blobs.js';
import { createRegressionSuiteStore } from './regression-suites.js';
import { createReviewStore } from './reviews.js';
import { createScenarioStore } from './scenarios.js';
import { createScheduleStore } from './schedules.js';
import { createScorecardStore } from './scorecards.js';
import { createSuiteKeyStore } from './suite-keys.js';
import type { StoreDatabase } from './sql/connect.js';
import type { StoreContext } from './sql/query.js';
import { createToolCallLog, createToolCallStore, type ToolCallLog } from './tool-calls.js';
import { createToolStore } from './tools.js';
import { createWorkspaceStore } from './workspaces.js';
import { TransactionBodies } from './transaction-bodies.js';

/** Every module on one context: the database itself, or one transaction on it. */
function modulesOn(ctx: StoreContext, toolCallLog: ToolCallLog) {
  return {
    agents: createAgentStore(ctx),
    alerts: createAlertStore(ctx),
    alertEvents: createAlertEventStore(ctx),
    sealed: createSealedStore(ctx),
    settings: createSettingsStore(ctx),
    simulations: createSimulationStore(ctx),
    calls: createCallStore(ctx),
    callEvaluations: createCallEvaluationStore(ctx),
    comparisons: createComparisonStore(ctx),
    comparisonReads: createComparisonReads(ctx),
    credentials: createCredentialStore(ctx),
    experiments: createExperimentStore(ctx),
    personas: createPersonaStore(ctx),
    recordingBlobs: createRecordingBlobStore(ctx),
    regressionSuites: createRegressionSuiteStore(ctx),
    reviews: createReviewStore(ctx),
    scenarios: createScenarioStore(ctx),
    schedules: createScheduleStore(ctx),
    scorecards: createScorecardStore(ctx),
    suiteKeys: createSuiteKeyStore(ctx),
    tools: createToolStore(ctx),
    toolCalls: createToolCallStore(ctx, toolCallLog),
    workspaces: createWorkspaceStore(ctx),
  };
}

export type StoreModules = ReturnType<typeof modulesOn>;

/**
 * Every read and write of the engine goes through these per-resource modules; operations never
 * hold SQL. Every method answers a promise, and the same modules run on SQLite and PostgreSQL.
 */
export interface Store extends StoreModules {
  /**
   * Runs fn in one transaction: several writes that land together or not at all. Inside, use the
   * store passed to fn (on SQLite the outer one waits until the transaction ends), and await
   * nothing but store calls: a transaction holds a connection while it is open.
   */
  transaction<T>(fn: (tx: Store) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Which database the store runs on. */
  readonly dialect: 'sqlite' | 'postgres';
  /** The SQLite database underneath (tests and benchmarks inspect it; the engine never does). */
  readonly db: Db;
  /** Ends the store's connections (the buffered tool-call log is written first). */
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * Holds the lock of this name for the transaction: of servers sharing a database, one at a time
   * runs a body with the same lock (the first start's bootstrap, say).
   */
  lock?: string;
}

const outerCallInside = () =>
  Promise.reject(
    new Error(
      'A call on the outer store inside a transaction would wait for that transaction forever: call the tx it passes',
    ),
  );

/** The modules with every method refusing to run inside a transaction's body (tests only). */
function guarded(modules: StoreModules, bodies: TransactionBodies): StoreModules {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, module] of Object.entries(modules)) {
    const methods: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(module as Record<string, unknown>)) {
      methods[key] =
        typeof member === 'function'
          ? (...args: unknown[]) =>
              bodies.insideOne()
                ? outerCallInside()
                : (member as (...a: unknown[]) => unknown)(...args)
          : member;
    }
    out[name] = methods;
  }
  return out as unknown as StoreModules;
}

/**
 * The store on an open, migrated database. With `checkTransactions` (tests), a call on the outer
 * store from inside a transaction fails at once instead of waiting forever.
 */
export function createStore(
  database: StoreDatabase,
  options: { checkTransactions?: boolean } = {},
): Store {
  const { kysely, dialect, sqlite } = database;
  // Only SQLite can tell cheaply that nothing changed; on PostgreSQL other servers write unseen.
  const cache: ReadCache = sqlite ? createReadCache(sqlite) : noReadCache;
  const toolCallLog = createToolCallLog(database, cache);
  const bodies = options.checkTransactions ? new TransactionBodies() : null;
  const close = async () => {
    await toolCallLog.flush();
    await database.close();
  };
  // A getter, so that a PostgreSQL store's `db` fails with a reason instead of being undefined.
  const complete = (modules: StoreModules, transaction: Store['transaction']): Store =>
    Object.defineProperty({ ...modules, dialect: dialect.name, close, transaction }, 'db', {
      get(): Db {
        if (!sqlite) throw new Error('This store runs on PostgreSQL: there is no SQLite database');
        return sqlite;
      },
    }) as Store;
  const outer = modulesOn(
    { db: kysely, dialect, cache, atomic: (fn) => database.transaction(fn) },
    toolCallLog,
  );
  return complete(bodies ? guarded(outer, bodies) : outer, (fn, txOptions) =>
    database.transaction(async (tx) => {
      if (txOptions?.lock) await dialect.transactionLock(txOptions.lock).execute(tx);
      // Reads inside see the transaction's own writes, which may yet roll back: never cached.
      const inside: Store = complete(
        modulesOn({ db: tx, dialect, cache: noReadCache, atomic: (fn) => fn(tx) }, toolCallLog),
        (nested) => nested(inside),
      );
      return bodies ? bodies.run(() => fn(inside)) : await fn(inside);
    }),
  );
}
