import { sql, type Insertable } from 'kysely';
import type { ExperimentRecord, ExperimentState } from '../domain/experiments.js';
import { fromJson } from './db.js';
import { insertInterleaved, type ExecutionBatch } from './executions.js';
import { recordColumns } from './record-columns.js';
import { affected, pageOf, patchRow, type StoreContext } from './sql/query.js';
import type { Experiments } from './sql/tables.js';

export type { ExperimentRecord };

/** The experiment's columns in the `experiments` table (migration 15), in the record's order. */
const COLUMNS = recordColumns<ExperimentRecord>({
  id: { column: 'id' },
  workspace_id: { column: 'workspace_id' },
  agent_id: { column: 'agent_id' },
  configuration: { column: 'configuration', json: true },
  scenario_ids: { column: 'scenario_ids', json: true },
  runs: { column: 'runs' },
  max_cost_usd: { column: 'max_cost_usd' },
  baseline_execution_ids: { column: 'baseline_execution_ids', json: true },
  candidate_execution_ids: { column: 'candidate_execution_ids', json: true },
  state: { column: 'state' },
  comparison_id: { column: 'comparison_id' },
  verdict: { column: 'verdict' },
  error: { column: 'error' },
  applied_at: { column: 'applied_at' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

const PATCH_COLUMNS = COLUMNS.patchColumns(['id', 'workspace_id', 'agent_id', 'created_at']);

type Row = Record<string, unknown>;

/** How an experiment ended (or its application), as written once its comparison is done. */
export type ExperimentPatch = Partial<
  Pick<ExperimentRecord, 'state' | 'comparison_id' | 'verdict' | 'error' | 'applied_at'>
>;

/** Finding experiments: by id, by workspace, unfinished, by one of their executions. */
function experimentReads(ctx: StoreContext) {
  const read = async (where: ReturnType<typeof sql<boolean>>) => {
    const { rows } = await sql<Row>`SELECT * FROM experiments WHERE ${where}`.execute(ctx.db);
    return rows.map((r) => COLUMNS.fromRow(r));
  };
  return {
    async get(workspaceId: string, id: string): Promise<ExperimentRecord | undefined> {
      return (await read(sql<boolean>`workspace_id = ${workspaceId} AND id = ${id}`))[0];
    },
    /** By id alone: for the engine's completion step, which no workspace asks. */
    async find(id: string): Promise<ExperimentRecord | undefined> {
      return (await read(sql<boolean>`id = ${id}`))[0];
    },
    /** A workspace's experiments, newest first. */
    async list(workspaceId: string, page: { limit: number; offset: number }) {
      const { rows, total } = await pageOf<Row>(
        ctx.db,
        {
          select: sql`*`,
          from: sql`experiments WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at DESC, id DESC`,
        },
        page,
      );
      return { items: rows.map((r) => COLUMNS.fromRow(r)), total };
    },
    /** Experiments whose comparison is still to be made (or was being made when a server stopped). */
    unfinished: (): Promise<ExperimentRecord[]> =>
      read(sql<boolean>`state IN ('running', 'comparing')`),
    /** Simulations of the experiment's executions still queued or running (one query). */
    async unended(id: string): Promise<number> {
      const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM simulations
        WHERE execution_id IN (SELECT execution_id FROM experiment_executions WHERE experiment_id = ${id})
          AND status IN ('queued', 'running')`.execute(ctx.db);
      return Number(rows[0]?.n ?? 0);
    },
    /** The experiment an execution belongs to, if any. */
    async ofExecution(executionId: string): Promise<string | undefined> {
      const row = await ctx.db
        .selectFrom('experiment_executions')
        .select('experiment_id')
        .where('execution_id', '=', executionId)
        .executeTakeFirst();
      return row?.experiment_id;
    },
    /**
     * The configuration a candidate execution's simulations run with on top of their agent, or
     * undefined for every other execution (looked up by the runner for each simulation).
     */
    async candidateConfiguration(
      executionId: string,
    ): Promise<Record<string, unknown> | undefined> {
      const row = await ctx.db
        .selectFrom('experiment_executions as x')
        .innerJoin('experiments as e', 'e.id', 'x.experiment_id')
        .select('e.configuration')
        .where('x.execution_id', '=', executionId)
        .where('x.side', '=', 'candidate')
        .executeTakeFirst();
      return row && fromJson<Record<string, unknown>>(row.configuration);
    },
  };
}

/** Saving experiments: queued with their executions, then moved to an ending. */
function experimentWrites(ctx: StoreContext) {
  return {
    /**
     * Queues an experiment: its executions (their simulations taking turns, b1, c1, b2, c2, ...)
     * and its row, together or not at all.
     */
    async create(
      e: ExperimentRecord,
      sides: { baseline: ExecutionBatch[]; candidate: ExecutionBatch[] },
    ) {
      const batches = sides.baseline.flatMap((b, i) => [b, sides.candidate[i]!]);
      await ctx.atomic(async (db) => {
        await insertInterleaved(ctx, db, batches);
        await db
          .insertInto('experiments')
          .values(COLUMNS.toRow(e) as Insertable<Experiments>)
          .execute();
        const links = [
          ...sides.baseline.map((b) => ({
            execution_id: b.e.id,
            experiment_id: e.id,
            side: 'baseline',
          })),
          ...sides.candidate.map((c) => ({
            execution_id: c.e.id,
            experiment_id: e.id,
            side: 'candidate',
          })),
        ];
        await db.insertInto('experiment_executions').values(links).execute();
      });
    },
    /** Moves an experiment from one state to another; false when it was not in `from` (taken). */
    async claim(
      id: string,
      from: ExperimentState,
      to: ExperimentState,
      at: string,
    ): Promise<boolean> {
      const result = await ctx.db
        .updateTable('experiments')
        .set({ state: to, updated_at: at })
        .where('id', '=', id)
        .where('state', '=', from)
        .executeTakeFirst();
      return affected({ numAffectedRows: result.numUpdatedRows }) > 0;
    },
    async update(id: string, patch: ExperimentPatch, at: string): Promise<void> {
      await patchRow(ctx.db, {
        table: 'experiments',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: at },
        where: sql`id = ${id}`,
      });
    },
  };
}

/** Experiments: queued with their executions, found by id or execution, moved to an ending. */
export function createExperimentStore(ctx: StoreContext) {
  return { ...experimentReads(ctx), ...experimentWrites(ctx) };
}

export type ExperimentStore = ReturnType<typeof createExperimentStore>;
