import { z } from 'zod';
import { VERDICTS } from './comparisons.js';
import { Timestamp } from './records.js';

/**
 * The drift suite, defined once: scenarios of one workspace an agent runs each time a sync records
 * a new version of it, compared with the previous version's run. The agent keeps the suite
 * (`agents.regression_suite`), the store keeps each run (`regression_suite_runs`, one per agent and
 * version), the operations answer both from these records.
 */

/** At most this many runs per scenario × persona, as an execution takes. */
export const MAX_SUITE_RUNS = 20;

/** The suite as asked for on `PATCH /v1/agents/{id}`. */
export const RegressionSuiteInput = z.strictObject({
  scenarioIds: z.array(z.string().min(1)).min(1).max(50),
  runs: z.number().int().min(1).max(MAX_SUITE_RUNS),
});
export type RegressionSuiteInput = z.infer<typeof RegressionSuiteInput>;

/** The suite as stored on the agent and answered: the workspace its scenarios belong to. */
export const RegressionSuite = z.object({
  workspaceId: z.string().describe('The workspace of its scenarios: its runs and comparisons'),
  scenarioIds: z.array(z.string()),
  runs: z.number().int(),
});
export type RegressionSuite = z.infer<typeof RegressionSuite>;

export const SUITE_RUN_STATUSES = ['running', 'completed', 'failed'] as const;
export type SuiteRunStatus = (typeof SUITE_RUN_STATUSES)[number];

/** One run of an agent's suite, for one version of the agent. */
export const SuiteRun = z.object({
  id: z.string(),
  agent_id: z.string(),
  version: z.number().int().describe('The agent version it tested'),
  workspace_id: z.string(),
  execution_ids: z.array(z.string()).describe('One execution per scenario of the suite'),
  status: z.enum(SUITE_RUN_STATUSES),
  baseline_run_id: z
    .string()
    .nullable()
    .describe("The previous version's run it was compared with; null for the first"),
  comparison_id: z.string().nullable(),
  verdict: z
    .enum(VERDICTS)
    .nullable()
    .describe("The comparison's overall verdict; null without a comparison"),
  error: z.string().nullable().describe('Why it failed to start or to compare'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SuiteRun = z.infer<typeof SuiteRun>;
