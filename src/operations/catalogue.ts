import { accessOperations } from './access.js';
import { agentOperations } from './agents.js';
import { alertOperations } from './alerts.js';
import { personaOperations } from './personas.js';
import { scenarioOperations } from './scenarios.js';
import { executionOperations } from './executions.js';
import { scheduleOperations } from './schedules.js';
import { scorecardOperations } from './scorecards.js';
import { settingsOperations } from './settings.js';
import { toolOperations } from './tools.js';
import type { Operation } from './types.js';

/** The one list of what the engine can do. HTTP, IPC and the CLI are adapters over it. */
export const catalogue: Operation[] = [
  ...accessOperations,
  ...personaOperations,
  ...scorecardOperations,
  ...scenarioOperations,
  ...executionOperations,
  ...scheduleOperations,
  ...toolOperations,
  ...alertOperations,
  ...agentOperations,
  ...settingsOperations,
];

export const operationNames = new Set(catalogue.map((op) => op.name));
