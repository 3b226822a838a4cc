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

/**
 * Every read and write of the engine goes through these per-resource modules; operations never
 * hold SQL. A PostgreSQL store would provide the same shape.
 */
export function createStore(db: Db) {
  const cache = createReadCache(db);
  return {
    db,
    /** Runs fn in one transaction: several writes that must land together or not at all. */
    transaction<T>(fn: () => T): T {
      return db.transaction(fn)();
    },
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

export type Store = ReturnType<typeof createStore>;
