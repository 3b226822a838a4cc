import type { SimulationMode } from '../domain/audio.js';
import type { LineChoice, SimulationLine } from '../domain/callers.js';
import { sql, type Kysely } from 'kysely';
import { fromJson, toJson } from './db.js';
import { CHUNK } from './simulation-rows.js';
import { pageOf, valueList, type StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';
import { PASS_RATE } from './usage.js';

/** An execution's line: the profile asked for (null: the scenario's), and a seed to replay. */
export interface ExecutionLine {
  choice: LineChoice | null;
  seed: number | null;
}

export interface Execution {
  id: string;
  scenario_id: string;
  /** The scenario's name now; null once it is deleted. */
  scenario_name: string | null;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  simulations_created: number;
  estimated_completion: string | null;
  created_at: string;
  variables: Record<string, string>;
  runs: number;
  channel: string | null;
  /** The mode this execution asked for; null: each scenario's own. */
  mode: SimulationMode | null;
  /** The line this execution asked for, and the seed; null: each scenario's own. */
  line: ExecutionLine | null;
  counts: Record<'queued' | 'running' | 'completed' | 'failed' | 'cancelled', number>;
  avg_score: number | null;
  pass_rate: number | null;
}

const round = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);

/** An executions row as the database answers it. */
interface ExecutionRow {
  id: string;
  scenario_id: string;
  scenario_name: string | null;
  estimated_completion: string | null;
  created_at: string;
  variables: string;
  runs: number;
  channel: string | null;
  mode: string | null;
  line: string | null;
  cancelled_at: string | null;
}

const noCounts = (): Execution['counts'] => ({
  queued: 0,
  running: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
});

/**
 * Executions with their counts, average score, pass rate and status, as they are now, by id (the
 * workspace's only): three queries however many executions.
 */
async function readExecutions(
  db: Kysely<Tables>,
  workspaceId: string,
  ids: string[],
): Promise<Map<string, Execution>> {
  const out = new Map<string, Execution>();
  if (ids.length === 0) return out;
  const { rows: executions } = await sql<ExecutionRow>`SELECT e.id, e.scenario_id,
      (SELECT name FROM scenarios WHERE id = e.scenario_id) AS scenario_name,
      e.estimated_completion, e.created_at, e.variables, e.runs, e.channel, e.mode, e.line, e.cancelled_at
    FROM executions e WHERE e.workspace_id = ${workspaceId} AND e.id IN (${valueList(ids)})`.execute(
    db,
  );
  if (executions.length === 0) return out;
  const found = valueList(executions.map((e) => e.id));
  const { rows: counted } = await sql<{ execution_id: string; status: string; n: number }>`
    SELECT execution_id, status, COUNT(*) AS n FROM simulations
    WHERE execution_id IN (${found}) GROUP BY execution_id, status`.execute(db);
  const { rows: figures } = await sql<{
    execution_id: string;
    avg: number | null;
    rate: number | null;
  }>`SELECT execution_id, AVG(score) AS avg, ${sql.raw(PASS_RATE)} AS rate FROM simulations
    WHERE execution_id IN (${found}) AND status IN ('completed', 'failed')
    GROUP BY execution_id`.execute(db);
  const countsOf = new Map<string, Execution['counts']>();
  for (const r of counted) {
    let counts = countsOf.get(r.execution_id);
    if (!counts) countsOf.set(r.execution_id, (counts = noCounts()));
    counts[r.status as keyof Execution['counts']] = r.n;
  }
  const figuresOf = new Map(figures.map((f) => [f.execution_id, f]));
  for (const e of executions) {
    const counts = countsOf.get(e.id) ?? noCounts();
    const agg = figuresOf.get(e.id) ?? { avg: null, rate: null };
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const ended = counts.completed + counts.failed + counts.cancelled;
    // completed once every simulation has ended (even when some failed); failed only when none could run.
    const status: Execution['status'] = e.cancelled_at
      ? 'cancelled'
      : ended < total
        ? counts.running > 0 || ended > 0
          ? 'running'
          : 'queued'
        : counts.completed === 0 && counts.failed > 0 && agg.avg === null && counts.failed === total
          ? 'failed'
          : 'completed';
    out.set(e.id, {
      id: e.id,
      scenario_id: e.scenario_id,
      scenario_name: e.scenario_name,
      status,
      simulations_created: total,
      estimated_completion: e.estimated_completion,
      created_at: e.created_at,
      variables: fromJson(e.variables),
      runs: e.runs,
      channel: e.channel,
      mode: e.mode as SimulationMode | null,
      line: fromJson(e.line),
      counts,
      avg_score: round(agg.avg),
      pass_rate: round(agg.rate),
    });
  }
  return out;
}

/** A simulation an execution queues: who calls which agent, how. */
interface NewSimulation {
  id: string;
  persona_id: string;
  agent_id: string;
  channel: string;
  mode: SimulationMode;
  /** Audio mode: its line and seed. */
  line: SimulationLine | null;
}

/** A new execution's simulations, numbered after the last one queued (inside its transaction). */
async function insertSimulations(
  db: Kysely<Tables>,
  e: { id: string; workspaceId: string; scenarioId: string; created_at: string },
  sims: NewSimulation[],
): Promise<void> {
  const { rows } = await sql<{
    last: number;
  }>`SELECT COALESCE(MAX(seq), 0) AS last FROM simulations`.execute(db);
  const next = rows[0]!.last + 1;
  for (let i = 0; i < sims.length; i += CHUNK) {
    await db
      .insertInto('simulations')
      .values(
        sims.slice(i, i + CHUNK).map((s, j) => ({
          id: s.id,
          workspace_id: e.workspaceId,
          execution_id: e.id,
          scenario_id: e.scenarioId,
          persona_id: s.persona_id,
          agent_id: s.agent_id,
          channel: s.channel,
          mode: s.mode,
          line: s.line === null ? null : toJson(s.line),
          status: 'queued',
          created_at: e.created_at,
          seq: next + i + j,
        })),
      )
      .execute();
  }
}

/** Creating and cancelling executions. */
function executionWrites(ctx: StoreContext) {
  return {
    async createExecution(
      e: {
        id: string;
        workspaceId: string;
        scenarioId: string;
        variables: Record<string, string>;
        runs: number;
        channel: string | null;
        mode: SimulationMode | null;
        line: ExecutionLine | null;
        created_at: string;
        estimated_completion: string;
      },
      sims: NewSimulation[],
    ): Promise<void> {
      await ctx.atomic(async (db) => {
        // Executions created together number their simulations one after the other: PostgreSQL's
        // servers take turns here until the transaction ends (SQLite writes one at a time anyway).
        await ctx.dialect.transactionLock('simulations.seq').execute(db);
        await db
          .insertInto('executions')
          .values({
            id: e.id,
            workspace_id: e.workspaceId,
            scenario_id: e.scenarioId,
            status: 'queued',
            created_at: e.created_at,
            variables: toJson(e.variables),
            runs: e.runs,
            channel: e.channel,
            mode: e.mode,
            line: e.line === null ? null : toJson(e.line),
            estimated_completion: e.estimated_completion,
          })
          .execute();
        await insertSimulations(db, e, sims);
      });
    },
    async cancel(workspaceId: string, executionId: string, at: string): Promise<void> {
      await ctx.atomic(async (db) => {
        await db
          .updateTable('executions')
          .set({ cancelled_at: at })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', executionId)
          .where('cancelled_at', 'is', null)
          .execute();
        await db
          .updateTable('simulations')
          .set({ status: 'cancelled', ended_at: at })
          .where('execution_id', '=', executionId)
          .where('status', '=', 'queued')
          .execute();
      });
    },
  };
}

/** Executions as they are now, a page at a time. */
function executionReads({ db }: StoreContext) {
  return {
    async listExecutions(
      workspaceId: string,
      limit: number,
      offset: number,
    ): Promise<{ items: Execution[]; total: number }> {
      const { rows, total } = await pageOf<{ id: string }>(
        db,
        {
          select: sql`id`,
          from: sql`executions WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at DESC, rowid DESC`,
        },
        { limit, offset },
      );
      const read = await readExecutions(
        db,
        workspaceId,
        rows.map((r) => r.id),
      );
      return { items: rows.map((r) => read.get(r.id)!), total };
    },
    /** An execution's variables alone, as resolved when it was queued (what its simulations run with). */
    async variablesOf(executionId: string): Promise<Record<string, string> | undefined> {
      const row = await db
        .selectFrom('executions')
        .select('variables')
        .where('id', '=', executionId)
        .executeTakeFirst();
      return row === undefined ? undefined : fromJson(row.variables);
    },
    async isCancelled(executionId: string): Promise<boolean> {
      const row = await db
        .selectFrom('executions')
        .select('cancelled_at')
        .where('id', '=', executionId)
        .executeTakeFirst();
      return row !== undefined && row.cancelled_at !== null;
    },
  };
}

/** Executions: created with their simulations queued, read with their counts, cancelled. */
export function createExecutionStore(ctx: StoreContext) {
  const execution = async (workspaceId: string, id: string): Promise<Execution | undefined> =>
    (await readExecutions(ctx.db, workspaceId, [id])).get(id);
  return { ...executionWrites(ctx), ...executionReads(ctx), execution };
}
