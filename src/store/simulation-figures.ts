import type { AudioSummary } from '../domain/audio.js';
import type { Simulation } from '../domain/simulations.js';
import { sql } from 'kysely';
import { SIM } from './simulation-rows.js';
import type { StoreContext } from './sql/query.js';
import { PASS_RATE, countWhere } from './usage.js';

/** An ended audio call as figures over calls read it. */
export interface AudioCall {
  audio: AudioSummary;
  latencies: number[];
}

/** A simulation of an agent that ended (scored, or in error): what its analytics read. */
export type EndedForAgent = Pick<Simulation, 'score' | 'results' | 'passed' | 'duration_ms'> & {
  status: 'completed' | 'failed';
  /** When it ended (when it was queued, for one ended without a time). */
  at: string;
};

type Row = Record<string, unknown>;

const callOf = SIM.reader<Pick<Simulation, 'turns'> & { audio: AudioSummary }>(['turns', 'audio']);
const endedOf = SIM.reader<EndedForAgent>(
  ['status', 'score', 'passed', 'results', 'duration_ms'],
  ['at'],
);

/** Figures other domains read from simulations (alerts, agent analytics). */
export function createSimulationFigures({ db }: StoreContext) {
  return {
    /** Average score of an agent's simulations that ran (since a time, when given), and how many were scored. */
    async agentScore(agentId: string, sinceIso = ''): Promise<{ avg: number | null; n: number }> {
      const { rows } = await sql<{ avg: number | null; n: number }>`SELECT AVG(score) AS avg,
          COUNT(score) AS n FROM simulations
        WHERE agent_id = ${agentId} AND status IN ('completed', 'failed')
          AND COALESCE(ended_at, created_at) >= ${sinceIso}`.execute(db);
      return rows[0]!;
    },
    /** Pass rate (percent) of the scenario's simulations in executions that schedules started. */
    async scheduledPassRate(
      scenarioId: string,
      sinceIso: string,
    ): Promise<{ rate: number | null; n: number }> {
      const { rows } = await sql<{ rate: number | null; n: number }>`SELECT
          ${sql.raw(PASS_RATE)} AS rate,
          COUNT(passed) + ${sql.raw(countWhere("status = 'failed' AND passed IS NULL"))} AS n
        FROM simulations
        WHERE scenario_id = ${scenarioId} AND status IN ('completed', 'failed')
          AND COALESCE(ended_at, created_at) >= ${sinceIso}
          AND execution_id IN (SELECT execution_id FROM schedule_runs
            WHERE trig = 'schedule' AND execution_id IS NOT NULL)`.execute(db);
      return rows[0]!;
    },
    /** What audio calls measured (an agent's between two times, or an execution's): each call's summary and its replies' latencies. */
    async audioCalls(
      of: { agentId: string; fromIso: string; toIso: string } | { executionId: string },
    ): Promise<AudioCall[]> {
      const which =
        'executionId' in of
          ? sql`execution_id = ${of.executionId}`
          : sql`agent_id = ${of.agentId} AND COALESCE(ended_at, created_at) >= ${of.fromIso}
              AND COALESCE(ended_at, created_at) <= ${of.toIso}`;
      const { rows } = await sql<Row>`SELECT audio, turns
        FROM simulations
        WHERE ${which} AND mode = 'audio' AND audio IS NOT NULL
          AND status IN ('completed', 'failed')`.execute(db);
      return rows.map(callOf).map(({ audio, turns }) => ({
        audio,
        latencies: turns.flatMap((t) =>
          t.role === 'agent' && t.latency_ms !== null ? [t.latency_ms] : [],
        ),
      }));
    },
    /** Scores and metric results of an agent's simulations that ran between two times. */
    async scoredForAgent(
      agentId: string,
      fromIso: string,
      toIso: string,
    ): Promise<EndedForAgent[]> {
      const { rows } = await sql<Row & { at: string }>`SELECT score, results, status, passed,
          duration_ms, COALESCE(ended_at, created_at) AS at
        FROM simulations
        WHERE agent_id = ${agentId} AND status IN ('completed', 'failed')
          AND COALESCE(ended_at, created_at) >= ${fromIso}
          AND COALESCE(ended_at, created_at) <= ${toIso}`.execute(db);
      return rows.map((r) => endedOf(r, r.at));
    },
    /** When the agent's first simulation ended (an analytics window of all time starts there). */
    async firstEndedForAgent(agentId: string): Promise<string | null> {
      const { rows } = await sql<{
        at: string | null;
      }>`SELECT MIN(COALESCE(ended_at, created_at)) AS at
        FROM simulations WHERE agent_id = ${agentId} AND status IN ('completed', 'failed')`.execute(
        db,
      );
      return rows[0]?.at ?? null;
    },
  };
}
