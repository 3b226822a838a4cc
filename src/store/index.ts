import { createAgentStore } from './agents.js';
import { createAlertStore } from './alerts.js';
import { createAlertEventStore } from './alert-events.js';
import { createSealedStore } from './sealed.js';
import { createSettingsStore } from './settings.js';
import { createSimulationStore } from './simulations.js';
import { createCallStore } from './calls.js';
import { createCredentialStore } from './credentials.js';
import type { Db } from './db.js';
import { createPersonaStore } from './personas.js';
import { createReadCache } from './read-cache.js';
import { createScenarioStore } from './scenarios.js';
import { createScheduleStore } from './schedules.js';
import { createScorecardStore } from './scorecards.js';
import { createToolCallStore } from './tool-calls.js';
import { createToolStore } from './tools.js';
import { createWorkspaceStore } from './workspaces.js';
import { TransactionBodies, TransactionGate, settle } from './transaction-gate.js';

/** The SQLite modules, synchronous underneath (better-sqlite3). */
function sqliteModules(db: Db) {
  const cache = createReadCache(db);
  return {
    agents: createAgentStore(db),
    alerts: createAlertStore(db),
    alertEvents: createAlertEventStore(db),
    sealed: createSealedStore(db),
    settings: createSettingsStore(db),
    simulations: createSimulationStore(db),
    calls: createCallStore(db),
    credentials: createCredentialStore(db),
    personas: createPersonaStore(db, cache),
    scenarios: createScenarioStore(db),
    schedules: createScheduleStore(db),
    scorecards: createScorecardStore(db),
    tools: createToolStore(db, cache),
    toolCalls: createToolCallStore(db),
    workspaces: createWorkspaceStore(db),
  };
}

type Modules = ReturnType<typeof sqliteModules>;

/** A module as the engine sees it: every method answers a promise, whatever the database. */
type Asynchronous<M> = {
  [K in keyof M]: M[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : M[K];
};

/** A mapped type drops a method's type parameters: the settings' typed read is restated. */
interface SettingsModule extends Omit<Asynchronous<Modules['settings']>, 'get'> {
  get<T>(key: string): Promise<T | null>;
}

export type StoreModules = { [K in keyof Modules]: Asynchronous<Modules[K]> } & {
  settings: SettingsModule;
};

/**
 * Every read and write of the engine goes through these per-resource modules; operations never
 * hold SQL. Every method is asynchronous so that a store on a database server has the same shape
 * as the one on SQLite.
 */
export interface Store extends StoreModules {
  /**
   * Runs fn in one transaction: several writes that land together or not at all. Inside, use the
   * store passed to fn (the outer one waits until the transaction ends), and await nothing but
   * store calls: a transaction holds the database while it is open.
   */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** The SQLite database underneath (tests and benchmarks inspect it; the engine never does). */
  readonly db: Db;
}

/** The modules' methods, each one run through `call` and answering a promise. */
function asynchronous(modules: Modules, call: <R>(run: () => R) => Promise<R>): StoreModules {
  const facade: Record<string, Record<string, unknown>> = {};
  for (const [name, module] of Object.entries(modules)) {
    const methods: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(module as Record<string, unknown>)) {
      methods[key] =
        typeof member === 'function'
          ? (...args: unknown[]) => call(() => (member as (...a: unknown[]) => unknown)(...args))
          : member;
    }
    facade[name] = methods;
  }
  return facade as unknown as StoreModules;
}

const outerCallInside = () =>
  Promise.reject(
    new Error(
      'A call on the outer store inside a transaction would wait for that transaction forever: call the tx it passes',
    ),
  );

/**
 * The store on an open SQLite database (migrated by the caller). With `checkTransactions` (tests),
 * a call on the outer store from inside a transaction fails at once instead of waiting forever.
 */
export function createStore(db: Db, options: { checkTransactions?: boolean } = {}): Store {
  const modules = sqliteModules(db);
  const gate = new TransactionGate();
  const bodies = options.checkTransactions ? new TransactionBodies() : null;
  // Inside a transaction calls run at once; everyone else waits for the gate.
  const inside: Store = {
    ...asynchronous(modules, settle),
    db,
    transaction: (fn) => fn(inside),
  };
  return {
    ...asynchronous(modules, (run) => (bodies?.insideOne() ? outerCallInside() : gate.run(run))),
    db,
    transaction: (fn) =>
      gate.exclusive(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await (bodies ? bodies.run(() => fn(inside)) : fn(inside));
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      }),
  };
}
