import type { AudioSummary, SimulationMode } from '../domain/audio.js';
import type { SimulationLine } from '../domain/callers.js';
import type { MetricResult, Turn, Usage } from '../domain/simulations.js';
import { sql } from 'kysely';
import { fromJson } from './db.js';

/*
 * A simulation as the store keeps it and reads it back: what executions, the queue, the figures
 * and the reads in simulations.ts share, so that none of them imports another.
 */

export interface Simulation {
  id: string;
  execution_id: string;
  scenario_id: string;
  persona_id: string | null;
  agent_id: string | null;
  channel: string;
  mode: SimulationMode;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  turns: Turn[];
  score: number | null;
  passed: boolean | null;
  results: MetricResult[];
  usage: Usage;
  /** Audio mode: what the call measured (null in text mode, or before it ran). */
  audio: AudioSummary | null;
  /** Audio mode: the recording's file name in the data dir, while it is kept. */
  recording: string | null;
  /** Audio mode: the line chosen for it, with the seed of its losses, jitter and caller behaviours. */
  line: SimulationLine | null;
  error?: string;
}

/** The names, now, of what a simulation ran (screens show names, not ids); null once deleted. */
export interface RunNames {
  scenario_name: string | null;
  persona_name: string | null;
  agent_name: string | null;
}

export const RUN_NAMES_SQL = `(SELECT name FROM scenarios WHERE id = s.scenario_id) AS scenario_name,
  (SELECT name FROM personas WHERE id = s.persona_id) AS persona_name,
  (SELECT name FROM agents WHERE id = s.agent_id) AS agent_name`;

export const namesOf = (r: RunNames): RunNames => ({
  scenario_name: r.scenario_name,
  persona_name: r.persona_name,
  agent_name: r.agent_name,
});

/** A simulations row as the database answers it. */
export interface SimRow {
  id: string;
  execution_id: string;
  scenario_id: string;
  persona_id: string | null;
  agent_id: string | null;
  channel: string;
  mode: SimulationMode;
  status: Simulation['status'];
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  turns: string;
  audio: string | null;
  recording: string | null;
  line: string | null;
  score: number | null;
  passed: number | null;
  results: string;
  usage: string;
  error: string | null;
  attempts: number;
  workspace_id: string;
}

export const simFromRow = (r: SimRow): Simulation => ({
  id: r.id,
  execution_id: r.execution_id,
  scenario_id: r.scenario_id,
  persona_id: r.persona_id,
  agent_id: r.agent_id,
  channel: r.channel,
  mode: r.mode,
  status: r.status,
  created_at: r.created_at,
  started_at: r.started_at,
  ended_at: r.ended_at,
  duration_ms: r.duration_ms,
  end_reason: r.end_reason,
  turns: fromJson(r.turns),
  score: r.score,
  passed: r.passed === null ? null : r.passed === 1,
  results: fromJson(r.results),
  usage: fromJson(r.usage),
  audio: fromJson(r.audio),
  recording: r.recording,
  line: fromJson(r.line),
  ...(r.error ? { error: r.error } : {}),
});

/** The columns of a SimRow, from `simulations s`. */
export const SIM_COLUMNS = sql.raw(
  's.id, s.execution_id, s.scenario_id, s.persona_id, s.agent_id, s.channel, s.mode, s.status, s.created_at, s.started_at, s.ended_at, s.duration_ms, s.end_reason, s.turns, s.score, s.passed, s.results, s.usage, s.audio, s.recording, s.line, s.error, s.attempts, s.workspace_id',
);

/** Rows per INSERT of many simulations: well below either database's limit of bound values. */
export const CHUNK = 500;
