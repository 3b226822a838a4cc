import { sql } from 'kysely';
import type { Simulation } from '../domain/simulations.js';
import { storedReplyLatencies } from './reply-latencies.js';
import { SIM } from './simulation-rows.js';
import {
  storedComparedFigures,
  type ComparedFigures,
  type ComparedResult,
} from './compared-figures.js';
import type { CallFigures } from './voice-figures.js';
import { valueList, type StoreContext } from './sql/query.js';

/*
 * What a comparison reads of its two sides' simulations, by execution ids: outcomes, identity,
 * each metric's outcome and the voice figures (./compared-figures.ts), never recordings, and
 * transcripts only where asked (rescoring). Each read is one query on `simulations_by_execution`
 * (execution_id, seq), so it costs the same however many other simulations are stored.
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
  'line',
  'cost_usd',
] as const satisfies readonly (keyof Simulation)[];

/**
 * A simulation as a comparison reads it: its metrics' outcomes in place of its results, its voice
 * figures in place of its audio summary, its agent replies' latencies in place of its turns.
 */
export type ComparedSimulation = Pick<Simulation, (typeof COMPARED_FIELDS)[number]> & {
  /** Each metric's name, score and pass. */
  results: ComparedResult[];
  /** Audio simulations: the voice figures of its audio summary (null: none, or no audio). */
  figures: CallFigures | null;
  /** Audio simulations: the latency of every agent reply (text simulations: none read). */
  latencies: number[];
};

/** A stored transcript, as scoring reads it again. */
export type StoredTranscript = Pick<Simulation, 'id' | 'turns' | 'end_reason' | 'audio'>;

type Row = Record<string, unknown>;
type AudioColumns = Row & {
  compared_figures: string | null;
  stored_results: string | null;
  audio_summary: string | null;
  audio_latencies: string | null;
  audio_turns: string | null;
};

const COLUMNS = sql.raw(SIM.selectList('s', COMPARED_FIELDS));
const read = SIM.reader<ComparedSimulation>(COMPARED_FIELDS, ['results', 'figures', 'latencies']);

/** A row's results and voice figures: stored apart when it ended, else from its results and audio. */
function figuresOf(r: AudioColumns): ComparedFigures {
  const columns = {
    compared: r.compared_figures,
    results: r.stored_results,
    audio: r.audio_summary,
  };
  return storedComparedFigures(columns, r.mode === 'audio');
}
const readTranscript = SIM.reader<StoredTranscript>(['id', 'turns', 'end_reason', 'audio']);

export function createComparisonReads({ db }: StoreContext) {
  return {
    /** The simulations of these executions, each execution's in the order they were queued. */
    async comparedOf(executionIds: readonly string[]): Promise<ComparedSimulation[]> {
      if (executionIds.length === 0) return [];
      // Outcomes and audio calls' figures and replies' latencies are stored apart when a
      // simulation ends: its results, audio summary and turns are read only if it ended before.
      const { rows } = await sql<AudioColumns>`SELECT ${COLUMNS}, s.compared_figures,
          CASE WHEN s.compared_figures IS NULL THEN s.results END AS stored_results,
          CASE WHEN s.mode = 'audio' AND s.compared_figures IS NULL THEN s.audio END AS audio_summary,
          CASE WHEN s.mode = 'audio' THEN s.reply_latencies END AS audio_latencies,
          CASE WHEN s.mode = 'audio' AND s.reply_latencies IS NULL THEN s.turns END AS audio_turns
        FROM simulations s WHERE s.execution_id IN (${valueList(executionIds)})
        ORDER BY s.execution_id, s.seq`.execute(db);
      return rows.map((r) => {
        const { results, figures } = figuresOf(r);
        return read(r, results, figures, storedReplyLatencies(r.audio_latencies, r.audio_turns));
      });
    },
    /** The stored transcripts of these executions' simulations (rescoring reads, never writes). */
    async transcriptsOf(executionIds: readonly string[]): Promise<StoredTranscript[]> {
      if (executionIds.length === 0) return [];
      const { rows } = await sql<Row>`SELECT s.id, s.turns, s.end_reason, s.audio
        FROM simulations s WHERE s.execution_id IN (${valueList(executionIds)})`.execute(db);
      return rows.map(readTranscript);
    },
    /**
     * Of these executions, those of this workspace, each with whether it is still open (queued or
     * running): not cancelled, with a simulation still queued or running, as its status says.
     */
    async openOf(workspaceId: string, ids: readonly string[]): Promise<Map<string, boolean>> {
      if (ids.length === 0) return new Map();
      const { rows } = await sql<{ id: string; open: number | boolean }>`SELECT e.id,
          (e.cancelled_at IS NULL AND EXISTS (SELECT 1 FROM simulations s
            WHERE s.execution_id = e.id AND s.status IN ('queued', 'running'))) AS open
        FROM executions e WHERE e.workspace_id = ${workspaceId} AND e.id IN (${valueList(ids)})`.execute(
        db,
      );
      return new Map(rows.map((r) => [r.id, r.open === true || r.open === 1]));
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
