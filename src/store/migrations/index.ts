import { m001Initial } from './001-initial.js';
import { m002ToolCalls } from './002-tool-calls.js';
import { m003Providers } from './003-providers.js';
import { m004Alerts } from './004-alerts.js';
import { m005Simulations } from './005-simulations.js';
import { m006ScheduleRuns } from './006-schedule-runs.js';
import { m007SimulationLeases } from './007-simulation-leases.js';
import { m008AudioSimulations } from './008-audio-simulations.js';
import { m009RealisticCallers } from './009-realistic-callers.js';
import { m010RecordingBlobs } from './010-recording-blobs.js';
import { m011AgentWorkspaces } from './011-agent-workspaces.js';
import { m012RunIdentity } from './012-run-identity.js';
import { m013Comparisons } from './013-comparisons.js';
import { m014Cost } from './014-cost.js';
import { m015VariantsExperiments } from './015-variants-experiments.js';
import { m016DriftSuite } from './016-drift-suite.js';
import { m017ReplyLatencies } from './017-reply-latencies.js';
import { m018SuiteKeys } from './018-suite-keys.js';
import { m019CallAgentVersion } from './019-call-agent-version.js';
import { m020ProductionMonitoring } from './020-production-monitoring.js';
import { m021Reviews } from './021-reviews.js';
import { m022ComparedFigures } from './022-compared-figures.js';

import type { Migration } from './migration.js';

export type { Migration };

/** Every migration this build knows, in order. Never edit one that has shipped: add the next. */
export const migrations: Migration[] = [
  m001Initial,
  m002ToolCalls,
  m003Providers,
  m004Alerts,
  m005Simulations,
  m006ScheduleRuns,
  m007SimulationLeases,
  m008AudioSimulations,
  m009RealisticCallers,
  m010RecordingBlobs,
  m011AgentWorkspaces,
  m012RunIdentity,
  m013Comparisons,
  m014Cost,
  m015VariantsExperiments,
  m016DriftSuite,
  m017ReplyLatencies,
  m018SuiteKeys,
  m019CallAgentVersion,
  m020ProductionMonitoring,
  m021Reviews,
  m022ComparedFigures,
];
