import { sql } from 'kysely';
import type { Simulation } from '../domain/simulations.js';
import { storedReplyLatencies } from './reply-latencies.js';
import { SIM } from './simulation-rows.js';
import { valueList, type StoreContext } from './sql/query.js';

/*
 * What a comparison reads of its two sides' simulations, by execution ids: outcomes, identity and
 * audio figures, never recordings, and transcripts only where asked (rescoring). Each read is one
 * query on `simulations_by_execution` (execution_id, seq), so it costs the same however many other
 * simulations are stored.
 */

/** The stored fields a comparison reads of each simulation. */
export const COMPARED_FIELDS = [
  'id',
  'execution_id',
  'scenario_id',
  'persona_id',
  'agent_id',
  'channel',
  'mode',
  'run',
  'scenario_hash',
  'scorecard_hash',
  'agent_config',
  'status',
  'created_at',
  'score',
  'passed',
  'results',
  'audio',
  'line',
  'cost_usd',
] as const satisfies readonly (keyof Simulation)[];

/** A simulation as a comparison reads it: its agent replies' latencies in place of its turns. */
export type ComparedSimulation = Pick<Simulation, (typeof COMPARED_FIELDS)[number]> & {
  /** Audio simulations: the latency of every agent reply (text simulations: none read). */
  latencies: number[];
};

/** A stored transcript, as scoring reads it again. */
export type StoredTranscript = Pick<Simulation, 'id' | 'turns' | 'end_reason' | 'audio'>;

type Row = Record<string, unknown>;
type Latencies = Row & { audio_latencies: string | null; audio_turns: string | null };

const COLUMNS = sql.raw(SIM.selectList('s', COMPARED_FIELDS));
const read = SIM.reader<Omit<ComparedSimulation, 'latencies'>>(COMPARED_FIELDS);
const readTranscript = SIM.reader<StoredTranscript>(['id', 'turns', 'end_reason', 'audio']);

export function createComparisonReads({ db }: StoreContext) {
  return {
    /** The simulations of these executions, each execution's in the order they were queued. */
    async comparedOf(executionIds: readonly string[]): Promise<ComparedSimulation[]> {
      if (executionIds.length === 0) return [];
      // Only audio replies' latencies are compared: stored apart when the call ended; the turns
      // are read only for calls that ended before that column existed.
      const { rows } = await sql<Latencies>`SELECT ${COLUMNS},
          CASE WHEN s.mode = 'audio' THEN s.reply_latencies END AS audio_latencies,
          CASE WHEN s.mode = 'audio' AND s.reply_latencies IS NULL THEN s.turns END AS audio_turns
        FROM simulations s WHERE s.execution_id IN (${valueList(executionIds)})
        ORDER BY s.execution_id, s.seq`.execute(db);
      return rows.map((r) => ({
        ...read(r),
        latencies: storedReplyLatencies(r.audio_latencies, r.audio_turns),
      }));
    },
    /** The stored transcripts of these executions' simulations (rescoring reads, never writes). */
    async transcriptsOf(executionIds: readonly string[]): Promise<StoredTranscript[]> {
      if (executionIds.length === 0) return [];
      const { rows } = await sql<Row>`SELECT s.id, s.turns, s.end_reason, s.audio
        FROM simulations s WHERE s.execution_id IN (${valueList(executionIds)})`.execute(db);
      return rows.map(readTranscript);
    },
    /** The names, now, of these scenarios and personas (null once deleted). */
    async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const list = valueList(ids);
      const { rows } = await sql<{ id: string; name: string }>`SELECT id, name FROM scenarios
        WHERE id IN (${list}) UNION ALL SELECT id, name FROM personas WHERE id IN (${list})`.execute(
        db,
      );
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}
