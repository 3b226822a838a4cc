import { sql, type Updateable } from 'kysely';
import { createExecutionStore } from './executions.js';
import { createCostBudgets, settleBudget } from './cost-budget.js';
import { createSimulationFigures } from './simulation-figures.js';
import { createSimulationQueue } from './simulation-queue.js';
import { simulationIdentity } from './simulation-identity.js';
import {
  CHUNK,
  NAMED,
  RUN_NAMES_SQL,
  SIM,
  SIM_COLUMNS,
  type RunNames,
  type Simulation,
} from './simulation-rows.js';
import { comparisonColumns } from './compared-figures.js';
import { pageOf, type StoreContext } from './sql/query.js';
import type { Simulations } from './sql/tables.js';

export type { Execution, ExecutionLine } from '../domain/executions.js';
export type { AudioCall, EndedForAgent } from './simulation-figures.js';
export type { RunNames, Simulation } from './simulation-rows.js';
export type { EndedHere, Lease } from '../domain/simulation-queue.js';

/** The fields of a simulation that long lists show (besides its turn count and its error). */
const SUMMARY_FIELDS = [
  'id',
  'execution_id',
  'scenario_id',
  'persona_id',
  'agent_id',
  'scenario_name',
  'persona_name',
  'agent_name',
  'channel',
  'mode',
  'status',
  'created_at',
  'ended_at',
  'duration_ms',
  'end_reason',
  'score',
  'passed',
] as const;

/** A simulation as lists show it: the stored fields a row needs, its names and its turn count. */
export type SimulationSummary = Pick<
  Simulation & RunNames,
  (typeof SUMMARY_FIELDS)[number] | 'error'
> & { turn_count: number };

type Row = Record<string, unknown>;
type SummaryRow = Row & { turn_count: number; error: string | null };

/** The stored columns of a summary (the names are RUN_NAMES_SQL's). */
const SUMMARY_COLUMNS = sql.raw(
  SIM.selectList(
    's',
    SUMMARY_FIELDS.filter((f) => f in SIM.fields),
  ),
);

/** A summary as one literal; `error` is passed after the turn count, where lists answer it. */
const toSummary = NAMED.reader<SimulationSummary>(SUMMARY_FIELDS, ['turn_count', 'error']);

/** A simulation with its names, whole. */
const toNamed = NAMED.fromRow;

/** Simulations with their names, whole or as summaries for long lists. */
function simulationReads(ctx: StoreContext) {
  const { db } = ctx;
  return {
    async simulationsOf(executionId: string): Promise<(Simulation & RunNames)[]> {
      const { rows } = await sql<Row>`SELECT ${SIM_COLUMNS}, ${sql.raw(RUN_NAMES_SQL)}
        FROM simulations s WHERE s.execution_id = ${executionId} ORDER BY s.seq`.execute(db);
      return rows.map(toNamed);
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
          select: sql`${SUMMARY_COLUMNS}, ${sql.raw(RUN_NAMES_SQL)},
            ${ctx.dialect.jsonArrayLength('s.turns')} AS turn_count, s.error`,
          from: sql`simulations s WHERE ${where}`,
          order: sql`s.seq DESC`,
        },
        q,
      );
      return { items: rows.map((r) => toSummary(r, r.turn_count, r.error)), total };
    },
    async simulation(
      workspaceId: string,
      id: string,
    ): Promise<(Simulation & RunNames) | undefined> {
      const { rows } = await sql<Row>`SELECT ${SIM_COLUMNS}, ${sql.raw(RUN_NAMES_SQL)}
        FROM simulations s WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}`.execute(db);
      const row = rows[0];
      return row && toNamed(row);
    },
  };
}

/** Ending simulations, and where one stands. */
function simulationEnds(ctx: StoreContext) {
  const { db } = ctx;
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
        Partial<Pick<Simulation, 'audio' | 'recording' | 'error' | 'cost_usd' | 'unpriced_models'>>,
      heldBy: string,
    ): Promise<boolean> {
      // What the run did not get to (no audio, no recording, no error) is stored empty.
      const ended = SIM.rowOf({
        ...r,
        audio: r.audio ?? null,
        recording: r.recording ?? null,
        error: r.error ?? null,
        cost_usd: r.cost_usd ?? null,
        unpriced_models: r.unpriced_models ?? [],
      }) as Updateable<Simulations>;
      // With the ending, its execution's cap gets back what it reserved and spends what it cost.
      return ctx.atomic(async (tx) => {
        const held = await tx
          .selectFrom('simulations')
          .select(['execution_id', 'reserved_usd'])
          .where('id', '=', id)
          .executeTakeFirst();
        const result = await tx
          .updateTable('simulations')
          .set({ ...ended, ...comparisonColumns(r), lease_owner: null, reserved_usd: 0 })
          .where('id', '=', id)
          .where('status', '=', 'running')
          .where('lease_owner', '=', heldBy)
          .executeTakeFirst();
        const recorded = Number(result.numUpdatedRows) > 0;
        if (recorded && held)
          await settleBudget(tx, {
            executionId: held.execution_id,
            reservedUsd: held.reserved_usd,
            costUsd: r.cost_usd ?? null,
          });
        return recorded;
      });
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
    budgets: createCostBudgets(ctx),
    ...simulationIdentity(ctx),
  };
}

export type SimulationStore = ReturnType<typeof createSimulationStore>;
