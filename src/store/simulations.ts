import { sql } from 'kysely';
import { toJson } from './db.js';
import { createExecutionStore } from './executions.js';
import { createSimulationFigures } from './simulation-figures.js';
import { createSimulationQueue } from './simulation-queue.js';
import {
  CHUNK,
  RUN_NAMES_SQL,
  SIM_COLUMNS,
  namesOf,
  simFromRow,
  type RunNames,
  type SimRow,
  type Simulation,
} from './simulation-rows.js';
import { pageOf, type StoreContext } from './sql/query.js';

export type { Execution, ExecutionLine } from './executions.js';
export type { AudioCall, EndedForAgent } from './simulation-figures.js';
export type { RunNames, Simulation } from './simulation-rows.js';
export type { EndedHere, Lease } from '../domain/simulation-queue.js';

/** A simulation as lists show it: the stored fields a row needs, its names and its turn count. */
export type SimulationSummary = RunNames &
  Pick<
    Simulation,
    | 'id'
    | 'execution_id'
    | 'scenario_id'
    | 'persona_id'
    | 'agent_id'
    | 'channel'
    | 'mode'
    | 'status'
    | 'created_at'
    | 'ended_at'
    | 'duration_ms'
    | 'end_reason'
    | 'score'
    | 'passed'
    | 'error'
  > & { turn_count: number };

/** A summary row: its flag and turn count as the database answers them. */
type SummaryRow = Omit<SimulationSummary, 'passed'> & { passed: number | null };

const summaryFromRow = (r: SummaryRow): SimulationSummary => ({
  id: r.id,
  execution_id: r.execution_id,
  scenario_id: r.scenario_id,
  persona_id: r.persona_id,
  agent_id: r.agent_id,
  scenario_name: r.scenario_name,
  persona_name: r.persona_name,
  agent_name: r.agent_name,
  channel: r.channel,
  mode: r.mode,
  status: r.status,
  created_at: r.created_at,
  ended_at: r.ended_at,
  duration_ms: r.duration_ms,
  end_reason: r.end_reason,
  score: r.score,
  passed: r.passed === null ? null : r.passed === 1,
  turn_count: r.turn_count,
  error: r.error,
});

/** Simulations with their names, whole or as summaries for long lists. */
function simulationReads(ctx: StoreContext) {
  const { db } = ctx;
  return {
    async simulationsOf(executionId: string): Promise<(Simulation & RunNames)[]> {
      const { rows } = await sql<SimRow & RunNames>`SELECT ${SIM_COLUMNS}, ${sql.raw(RUN_NAMES_SQL)}
        FROM simulations s WHERE s.execution_id = ${executionId} ORDER BY s.seq`.execute(db);
      return rows.map((r) => ({ ...simFromRow(r), ...namesOf(r) }));
    },
    /** A page of simulations without their turns and results (long lists); newest first. */
    async listSummaries(
      workspaceId: string,
      q: { executionId?: string; limit: number; offset: number },
    ): Promise<{ items: SimulationSummary[]; total: number }> {
      const where = q.executionId
        ? sql`s.workspace_id = ${workspaceId} AND s.execution_id = ${q.executionId}`
        : sql`s.workspace_id = ${workspaceId}`;
      const { rows, total } = await pageOf<SummaryRow>(
        db,
        {
          select: sql`s.id, s.execution_id, s.scenario_id, s.persona_id, s.agent_id,
            ${sql.raw(RUN_NAMES_SQL)}, s.channel, s.mode, s.status, s.created_at, s.ended_at, s.duration_ms,
            s.end_reason, s.score, s.passed, ${ctx.dialect.jsonArrayLength('s.turns')} AS turn_count,
            s.error`,
          from: sql`simulations s WHERE ${where}`,
          order: sql`s.seq DESC`,
        },
        q,
      );
      return { items: rows.map(summaryFromRow), total };
    },
    async simulation(
      workspaceId: string,
      id: string,
    ): Promise<(Simulation & RunNames) | undefined> {
      const { rows } = await sql<SimRow & RunNames>`SELECT ${SIM_COLUMNS}, ${sql.raw(RUN_NAMES_SQL)}
        FROM simulations s WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}`.execute(db);
      const row = rows[0];
      return row && { ...simFromRow(row), ...namesOf(row) };
    },
  };
}

/** Ending simulations, and where one stands. */
function simulationEnds({ db }: StoreContext) {
  return {
    /**
     * Records how a simulation ended, if the lease it ran under still holds: a server that lost
     * its lease (the simulation was taken back and runs elsewhere) records nothing. Answers whether
     * the result was recorded.
     */
    async finish(
      id: string,
      r: Pick<
        Simulation,
        | 'status'
        | 'ended_at'
        | 'duration_ms'
        | 'end_reason'
        | 'turns'
        | 'score'
        | 'passed'
        | 'results'
        | 'usage'
      > &
        Partial<Pick<Simulation, 'audio' | 'recording'>> & { error?: string },
      heldBy: string,
    ): Promise<boolean> {
      const result = await db
        .updateTable('simulations')
        .set({
          status: r.status,
          ended_at: r.ended_at,
          duration_ms: r.duration_ms,
          end_reason: r.end_reason,
          turns: toJson(r.turns),
          score: r.score,
          passed: r.passed === null ? null : Number(r.passed),
          results: toJson(r.results),
          usage: toJson(r.usage),
          audio: r.audio ? toJson(r.audio) : null,
          recording: r.recording ?? null,
          error: r.error ?? null,
          lease_owner: null,
        })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('lease_owner', '=', heldBy)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Which of these recording names a simulation still keeps. */
    async withRecordings(names: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < names.length; i += CHUNK) {
        const rows = await db
          .selectFrom('simulations')
          .select('recording')
          .where('recording', 'in', names.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) if (r.recording) out.add(r.recording);
      }
      return out;
    },
    async forgetRecording(name: string): Promise<void> {
      await db
        .updateTable('simulations')
        .set({ recording: null })
        .where('recording', '=', name)
        .execute();
    },
    async status(id: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('simulations')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.status;
    },
  };
}

/**
 * Executions and their simulations; queued simulations are the persistent work queue. One object
 * made of the executions, the simulations' reads and endings, the queue, and the figures.
 */
export function createSimulationStore(ctx: StoreContext) {
  return {
    ...createExecutionStore(ctx),
    ...simulationReads(ctx),
    ...createSimulationQueue(ctx),
    ...simulationEnds(ctx),
    ...createSimulationFigures(ctx),
  };
}

export type SimulationStore = ReturnType<typeof createSimulationStore>;
