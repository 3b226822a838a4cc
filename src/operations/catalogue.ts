import { accessOperations } from './access.js';
import { agentOperations } from './agents.js';
import { variantOperations } from './variants.js';
import { experimentOperations } from './experiments.js';
import { regressionSuiteOperations } from './regression-suite.js';
import { demoOperations } from './demo.js';
import { alertOperations } from './alerts.js';
import { personaOperations } from './personas.js';
import { scenarioOperations } from './scenarios.js';
import { executionOperations } from './executions.js';
import { estimateOperations } from './estimates.js';
import { comparisonOperations } from './comparisons.js';
import { scheduleOperations } from './schedules.js';
import { scorecardOperations } from './scorecards.js';
import { reviewOperations } from './reviews.js';
import { settingsOperations } from './settings.js';
import { speechTestOperations } from './speech-tests.js';
import { toolOperations } from './tools.js';
import { suiteOperations } from './suite/operations.js';
import { callScenarioOperations } from './call-scenario.js';
import { monitoringOperations } from './monitoring.js';
import type { Operation } from './types.js';

const operations = [
  ...accessOperations,
  ...personaOperations,
  ...scorecardOperations,
  ...reviewOperations,
  ...scenarioOperations,
  ...executionOperations,
  ...estimateOperations,
  ...comparisonOperations,
  ...scheduleOperations,
  ...toolOperations,
  ...alertOperations,
  ...agentOperations,
  ...callScenarioOperations,
  ...monitoringOperations,
  ...variantOperations,
  ...experimentOperations,
  ...regressionSuiteOperations,
  ...settingsOperations,
  ...demoOperations,
  ...speechTestOperations,
  ...suiteOperations,
];

/** The one list of what the engine can do. HTTP, IPC and the CLI are adapters over it. */
export const catalogue: Operation[] = operations;

type CatalogueOperation = (typeof operations)[number];

export type { EngineEvent, EngineEventMap, EngineEventType } from '../events.js';

/**
 * Each operation's name with what a caller sends and what it answers, derived from the catalogue
 * itself: the typed clients (the renderer's, over IPC or HTTP) are checked against it.
 */
export type OperationMap = {
  [Op in CatalogueOperation as Op['name']]: NonNullable<Op['types']>;
};
export type OperationName = keyof OperationMap;
export type OperationInput<N extends OperationName> = OperationMap[N]['input'];
export type OperationOutput<N extends OperationName> = OperationMap[N]['output'];

export const operationNames = new Set(catalogue.map((op) => op.name));
