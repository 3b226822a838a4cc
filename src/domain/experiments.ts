import { z } from 'zod';
import { VERDICTS } from './comparisons.js';
import { Timestamp } from './records.js';

/**
 * The experiment, defined once: an agent as it is now (the baseline) against the same agent with
 * a configuration on top (the candidate), both on the replica, over some scenarios, with their
 * simulations taking turns in the queue; once both sides ended, their comparison. The store keeps
 * the record (`state` the stored progress), the operations answer it with `status` worked out
 * from its executions.
 */

export const EXPERIMENT_STATUSES = [
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/**
 * Stored progress: `running` until its executions end, `comparing` while one server builds the
 * comparison (claimed, so that two servers hearing the same ending build it once), then an ending.
 */
export const EXPERIMENT_STATES = [
  'running',
  'comparing',
  'completed',
  'failed',
  'cancelled',
] as const;
export type ExperimentState = (typeof EXPERIMENT_STATES)[number];

export const ExperimentRecord = z.object({
  id: z.string(),
  workspace_id: z.string(),
  agent_id: z.string(),
  configuration: z
    .record(z.string(), z.unknown())
    .describe(
      'The candidate: this configuration on top of the agent (as PATCH /v1/agents/{id} takes it)',
    ),
  scenario_ids: z.array(z.string()),
  runs: z.number().int(),
  max_cost_usd: z.number().nullable(),
  baseline_execution_ids: z
    .array(z.string())
    .describe('One execution per scenario, in scenario order'),
  candidate_execution_ids: z
    .array(z.string())
    .describe('One execution per scenario, in scenario order'),
  state: z.enum(EXPERIMENT_STATES),
  comparison_id: z.string().nullable().describe('Set once both sides ended and were compared'),
  verdict: z.enum(VERDICTS).nullable().describe("The comparison's overall verdict"),
  error: z.string().nullable().describe('Why it failed'),
  applied_at: Timestamp.nullable().describe("When its configuration became the agent's overrides"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ExperimentRecord = z.infer<typeof ExperimentRecord>;

/** The experiment as answered: the stored state read as a status, the first execution of each side. */
export const Experiment = z.object({
  id: z.string(),
  status: z.enum(EXPERIMENT_STATUSES),
  agent_id: z.string(),
  baseline_execution_id: z.string(),
  candidate_execution_id: z.string(),
  comparison_id: ExperimentRecord.shape.comparison_id,
  verdict: ExperimentRecord.shape.verdict,
  baseline_execution_ids: ExperimentRecord.shape.baseline_execution_ids,
  candidate_execution_ids: ExperimentRecord.shape.candidate_execution_ids,
  configuration: ExperimentRecord.shape.configuration,
  scenario_ids: ExperimentRecord.shape.scenario_ids,
  runs: ExperimentRecord.shape.runs,
  max_cost_usd: ExperimentRecord.shape.max_cost_usd,
  error: ExperimentRecord.shape.error,
  applied_at: ExperimentRecord.shape.applied_at,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Experiment = z.infer<typeof Experiment>;
