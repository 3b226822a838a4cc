import { z } from 'zod';
import { SIMULATION_MODES } from './audio.js';
import { LineChoice } from './callers.js';
import { Timestamp } from './records.js';
import { NameNow, RunIdentity, SIMULATION_STATUSES, type SimulationStatus } from './simulations.js';

/**
 * The execution (a scenario run once over its personas and agents), defined once: the store keeps
 * what was asked for and counts the rest from its simulations; the operations answer this record.
 */

/**
 * An execution's status is worked out from its simulations' (and its cancel), never stored: it is
 * always one a simulation can have.
 */
export const EXECUTION_STATUSES = SIMULATION_STATUSES;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** The statuses an execution stays in: nothing runs for it any more. */
export const ENDED_EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'completed',
  'failed',
  'cancelled',
  'skipped',
];

/** An execution's line: the profile asked for (null: the scenario's), and a seed to replay. */
export const ExecutionLine = z.object({
  choice: LineChoice.nullable(),
  seed: z
    .number()
    .int()
    .nullable()
    .describe(
      'Audio: the root seed (drawn when not given); run 1 takes it, run r one derived from it',
    ),
});
export type ExecutionLine = z.infer<typeof ExecutionLine>;

/** How many of an execution's simulations stand at each status, every status present. */
const SimulationCounts = z.object(
  Object.fromEntries(SIMULATION_STATUSES.map((s) => [s, z.number().int()])) as Record<
    SimulationStatus,
    z.ZodNumber
  >,
);

// The order of the fields is the order the API answers them in.
export const Execution = z.object({
  id: z.string(),
  scenario_id: z.string(),
  scenario_name: NameNow,
  status: z.enum(EXECUTION_STATUSES),
  simulations_created: z.number().int(),
  estimated_completion: Timestamp.nullable(),
  created_at: Timestamp,
  variables: z.record(z.string(), z.string()),
  runs: z.number().int(),
  channel: z.string().nullable(),
  mode: z
    .enum(SIMULATION_MODES)
    .nullable()
    .describe("The mode asked for every simulation; null: each scenario's own"),
  line: ExecutionLine.nullable().describe(
    "The line asked for every simulation and, in audio mode, the root seed its runs derive from; null: text mode, each scenario's own",
  ),
  scenario_hash: RunIdentity.shape.scenario_hash,
  scorecard_hash: RunIdentity.shape.scorecard_hash,
  agent_config_hashes: z
    .array(z.string())
    .nullable()
    .describe(
      "Each target agent's agent_config.hash, in the scenario's order; null before recorded",
    ),
  counts: SimulationCounts,
  max_cost_usd: z
    .number()
    .nullable()
    .describe('The spend cap: simulations it leaves no budget for are skipped; null: none'),
  cost_usd: z
    .number()
    .nullable()
    .describe(
      "Its simulations' cost_usd summed; null while any of them used an unpriced model, or ran before costs",
    ),
  unpriced_models: z.array(z.string()).describe('Models, engines or providers without a price'),
  avg_score: z.number().nullable(),
  pass_rate: z
    .number()
    .nullable()
    .describe(
      'Percent of judged simulations that passed; failed (errored) ones count as not passed',
    ),
});
export type Execution = z.infer<typeof Execution>;

/**
 * What the executions table keeps of an execution: what was asked for, and when it was cancelled.
 * The rest of the record is read from elsewhere as it is now: the scenario's name, and the status,
 * counts and figures of its simulations.
 */
export const StoredExecution = Execution.pick({
  id: true,
  scenario_id: true,
  estimated_completion: true,
  created_at: true,
  variables: true,
  runs: true,
  channel: true,
  mode: true,
  line: true,
  scenario_hash: true,
  scorecard_hash: true,
  agent_config_hashes: true,
  max_cost_usd: true,
}).extend({
  cancelled_at: Timestamp.nullable(),
  /** What each simulation reserves of the cap as it starts (null: no cap). */
  budget_per_simulation_usd: z.number().nullable(),
});
export type StoredExecution = z.infer<typeof StoredExecution>;
