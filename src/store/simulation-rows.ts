import type { RunNames, Simulation } from '../domain/simulations.js';
import { sql } from 'kysely';
import { recordColumns, type RecordColumnMap } from './record-columns.js';

/*
 * A simulation's row: what executions, the queue, the figures and the reads in simulations.ts
 * share, so that none of them imports another.
 */

export type { RunNames, Simulation };

/**
 * The simulation's columns in the `simulations` table, in answer order; the table's own bookkeeping
 * (`workspace_id`, `seq`, `attempts`, the lease) is the queue's, outside the record.
 */
const STORED: RecordColumnMap<Simulation> = {
  id: { column: 'id' },
  execution_id: { column: 'execution_id' },
  scenario_id: { column: 'scenario_id' },
  persona_id: { column: 'persona_id' },
  agent_id: { column: 'agent_id' },
  channel: { column: 'channel' },
  mode: { column: 'mode' },
  run: { column: 'run' },
  scenario_hash: { column: 'scenario_hash' },
  scorecard_hash: { column: 'scorecard_hash' },
  agent_config: { column: 'agent_config', json: true },
  status: { column: 'status' },
  created_at: { column: 'created_at' },
  started_at: { column: 'started_at' },
  ended_at: { column: 'ended_at' },
  duration_ms: { column: 'duration_ms' },
  end_reason: { column: 'end_reason' },
  turns: { column: 'turns', json: true },
  score: { column: 'score' },
  // Null until it is scored.
  passed: { column: 'passed', flag: true, nullable: true },
  results: { column: 'results', json: true },
  usage: { column: 'usage', json: true },
  cost_usd: { column: 'cost_usd' },
  unpriced_models: { column: 'unpriced_models', json: true },
  audio: { column: 'audio', json: true },
  recording: { column: 'recording' },
  line: { column: 'line', json: true },
  error: { column: 'error' },
};

export const SIM = recordColumns<Simulation>(STORED);

export const RUN_NAMES_SQL = `(SELECT name FROM scenarios WHERE id = s.scenario_id) AS scenario_name,
  (SELECT name FROM personas WHERE id = s.persona_id) AS persona_name,
  (SELECT name FROM agents WHERE id = s.agent_id) AS agent_name`;

const { id, execution_id, scenario_id, persona_id, agent_id, ...rest } = STORED;

/**
 * A simulation with the names of what it ran, for reading only: the names are the columns
 * RUN_NAMES_SQL selects, placed after the ids they name (where lists answer them).
 */
export const NAMED = recordColumns<Simulation & RunNames>({
  id,
  execution_id,
  scenario_id,
  persona_id,
  agent_id,
  scenario_name: { column: 'scenario_name' },
  persona_name: { column: 'persona_name' },
  agent_name: { column: 'agent_name' },
  ...rest,
});

/** The stored fields of a simulation. */
export const SIM_FIELDS = Object.keys(STORED) as (keyof Simulation)[];

/** The columns of a simulation, from `simulations s`. */
export const SIM_COLUMNS = sql.raw(SIM.selectList('s', SIM_FIELDS));

/** Rows per INSERT of many simulations: well below either database's limit of bound values. */
export const CHUNK = 500;
