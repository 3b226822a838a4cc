import { sql, type Insertable, type Kysely } from 'kysely';
import { Execution, type ExecutionStatus, type StoredExecution } from '../domain/executions.js';
import { SIMULATION_STATUSES, type Simulation } from '../domain/simulations.js';
import { fromJson } from './db.js';
import { recordColumns } from './record-columns.js';
import { CHUNK, SIM } from './simulation-rows.js';
import { pageOf, valueList, type StoreContext } from './sql/query.js';
import type { Executions, Simulations, Tables } from './sql/tables.js';
import { PASS_RATE } from './usage.js';
import { costsOf } from './execution-costs.js';

/**
 * The execution's columns in the `executions` table (besides `workspace_id`, and `status`: always
 * 'queued' there, the status being worked out from the simulations when it is read).
 */
const COLUMNS = recordColumns<StoredExecution>({
  id: { column: 'id' },
  scenario_id: { column: 'scenario_id' },
  estimated_completion: { column: 'estimated_completion' },
  created_at: { column: 'created_at' },
  variables: { column: 'variables', json: true },
  runs: { column: 'runs' },
  channel: { column: 'channel' },
  mode: { column: 'mode' },
  line: { column: 'line', json: true },
  scenario_hash: { column: 'scenario_hash' },
  scorecard_hash: { column: 'scorecard_hash' },
  agent_config_hashes: { column: 'agent_config_hashes', json: true },
  max_cost_usd: { column: 'max_cost_usd' },
  cancelled_at: { column: 'cancelled_at' },
  budget_per_simulation_usd: { column: 'budget_per_simulation_usd' },
});

const STORED_COLUMNS = sql.raw(COLUMNS.selectList('e', Object.keys(COLUMNS.fields)));
const ANSWER_FIELDS = Object.keys(Execution.shape) as (keyof Execution)[];

type Row = Record<string, unknown> & { id: string; scenario_name: string | null };
type Counts = Execution['counts'];
/** What is counted from an execution's simulations as they are now (its status is read from these). */
type Figures = Pick<
  Execution,
  'simulations_created' | 'counts' | 'avg_score' | 'pass_rate' | 'cost_usd' | 'unpriced_models'
>;

const round = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);

const noCounts = (): Counts => Object.fromEntries(SIMULATION_STATUSES.map((s) => [s, 0])) as Counts;

/** The execution as answered, its fields in the record's order (a spread would put the figures last). */
const inAnswerOrder = (e: Execution): Execution =>
  Object.fromEntries(ANSWER_FIELDS.map((f) => [f, e[f]])) as Execution;

/**
 * Completed once every simulation has ended (even when some failed, or the cost cap skipped some);
 * failed only when none could run; skipped when the cap let none run; cancelled once asked,
 * whatever still runs.
 */
function statusOf(cancelled: boolean, f: Figures): ExecutionStatus {
  if (cancelled) return 'cancelled';
  const { counts, simulations_created: total } = f;
  const ended = counts.completed + counts.failed + counts.cancelled + counts.skipped;
  if (ended < total) return counts.running > 0 || ended > 0 ? 'running' : 'queued';
  if (total > 0 && counts.skipped === total) return 'skipped';
  const noneRan = counts.completed === 0 && counts.failed > 0 && counts.failed === total;
  return noneRan && f.avg_score === null ? 'failed' : 'completed';
}

/** The counts, average score and pass rate of these executions' simulations, by execution. */
async function figuresOf(db: Kysely<Tables>, ids: string[]): Promise<Map<string, Figures>> {
  const found = valueList(ids);
  const { rows: counted } = await sql<{ execution_id: string; status: string; n: number }>`
    SELECT execution_id, status, COUNT(*) AS n FROM simulations
    WHERE execution_id IN (${found}) GROUP BY execution_id, status`.execute(db);
  const { rows: scored } = await sql<{
    execution_id: string;
    avg: number | null;
    rate: number | null;
  }>`SELECT execution_id, AVG(score) AS avg, ${sql.raw(PASS_RATE)} AS rate FROM simulations
    WHERE execution_id IN (${found}) AND status IN ('completed', 'failed')
    GROUP BY execution_id`.execute(db);
  const countsOf = new Map<string, Counts>();
  for (const r of counted) {
    let counts = countsOf.get(r.execution_id);
    if (!counts) countsOf.set(r.execution_id, (counts = noCounts()));
    counts[r.status as keyof Counts] = r.n;
  }
  const scoredOf = new Map(scored.map((f) => [f.execution_id, f]));
  const costs = await costsOf(db, found);
  return new Map(
    ids.map((id) => {
      const counts = countsOf.get(id) ?? noCounts();
      const { avg, rate } = scoredOf.get(id) ?? { avg: null, rate: null };
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const cost = costs.get(id) ?? { cost_usd: 0, unpriced_models: [] };
      return [
        id,
        {
          simulations_created: total,
          counts,
          avg_score: round(avg),
          pass_rate: round(rate),
          ...cost,
        },
      ];
    }),
  );
}

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
  const { rows } = await sql<Row>`SELECT ${STORED_COLUMNS},
      (SELECT name FROM scenarios WHERE id = e.scenario_id) AS scenario_name
    FROM executions e WHERE e.workspace_id = ${workspaceId} AND e.id IN (${valueList(ids)})`.execute(
    db,
  );
  if (rows.length === 0) return out;
  const figures = await figuresOf(
    db,
    rows.map((r) => r.id),
  );
  for (const row of rows) {
    const { cancelled_at, ...stored } = COLUMNS.fromRow(row);
    const now = figures.get(row.id)!;
    const status = statusOf(cancelled_at !== null, now);
    out.set(row.id, inAnswerOrder({ ...stored, ...now, status, scenario_name: row.scenario_name }));
  }
  return out;
}

/** A simulation an execution queues: who calls which agent, how. */
export type NewSimulation = Pick<
  Simulation,
  | 'id'
  | 'persona_id'
  | 'agent_id'
  | 'channel'
  | 'mode'
  | 'line'
  | 'run'
  | 'scenario_hash'
  | 'scorecard_hash'
  | 'agent_config'
>;

/** What a new execution stores, with the workspace and scenario it runs. */
export type NewExecution = Omit<
  StoredExecution,
  'scenario_id' | 'cancelled_at' | 'max_cost_usd' | 'budget_per_simulation_usd'
> &
  // No cap unless given.
  Partial<Pick<StoredExecution, 'max_cost_usd' | 'budget_per_simulation_usd'>> & {
    workspaceId: string;
    scenarioId: string;
  };

/** A new execution's row (its cap null unless given). */
const executionRow = (e: NewExecution) =>
  COLUMNS.toRow({
    ...e,
    scenario_id: e.scenarioId,
    cancelled_at: null,
    max_cost_usd: e.max_cost_usd ?? null,
    budget_per_simulation_usd: e.budget_per_simulation_usd ?? null,
  });

/** A simulation as queued: nothing run, scored or spent yet. */
const queued = (e: NewExecution, s: NewSimulation): Simulation => ({
  ...s,
  execution_id: e.id,
  scenario_id: e.scenarioId,
  status: 'queued',
  created_at: e.created_at,
  started_at: null,
  ended_at: null,
  duration_ms: null,
  end_reason: null,
  turns: [],
  score: null,
  passed: null,
  results: [],
  usage: { llm_calls: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, by_model: [] },
  cost_usd: null,
  unpriced_models: [],
  audio: null,
  recording: null,
  error: null,
});

/** A new execution's simulations, numbered after the last one queued (inside its transaction). */
async function insertSimulations(
  db: Kysely<Tables>,
  e: NewExecution,
  sims: NewSimulation[],
): Promise<void> {
  const { rows } = await sql<{
    last: number;
  }>`SELECT COALESCE(MAX(seq), 0) AS last FROM simulations`.execute(db);
  const next = rows[0]!.last + 1;
  for (let i = 0; i < sims.length; i += CHUNK) {
    const chunk = sims.slice(i, i + CHUNK).map(
      (s, j) =>
        ({
          ...SIM.toRow(queued(e, s)),
          workspace_id: e.workspaceId,
          seq: next + i + j,
        }) as Insertable<Simulations>,
    );
    await db.insertInto('simulations').values(chunk).execute();
  }
}

/** An execution to queue with its simulations (several are queued together by an experiment). */
export interface ExecutionBatch {
  e: NewExecution;
  sims: NewSimulation[];
}

/**
 * Inserts executions whose simulations take turns in the queue (the first of each, then the
 * second of each, ...), so that what happens meanwhile (a slow model, a busy host) meets every
 * execution alike. Run inside a transaction: it takes the queue numbers' lock itself.
 */
export async function insertInterleaved(
  ctx: StoreContext,
  db: Kysely<Tables>,
  batches: ExecutionBatch[],
): Promise<void> {
  await ctx.dialect.transactionLock('simulations.seq').execute(db);
  for (const { e } of batches) {
    const stored = executionRow(e);
    await db
      .insertInto('executions')
      .values({
        ...stored,
        workspace_id: e.workspaceId,
        status: 'queued',
      } as Insertable<Executions>)
      .execute();
  }
  const { rows } = await sql<{
    last: number;
  }>`SELECT COALESCE(MAX(seq), 0) AS last FROM simulations`.execute(db);
  let seq = rows[0]!.last;
  const longest = Math.max(0, ...batches.map((b) => b.sims.length));
  const queue: Insertable<Simulations>[] = [];
  for (let i = 0; i < longest; i++)
    for (const { e, sims } of batches) {
      const s = sims[i];
      if (s)
        queue.push({
          ...SIM.toRow(queued(e, s)),
          workspace_id: e.workspaceId,
          seq: ++seq,
        } as Insertable<Simulations>);
    }
  for (let i = 0; i < queue.length; i += CHUNK)
    await db
      .insertInto('simulations')
      .values(queue.slice(i, i + CHUNK))
      .execute();
}

/** Creating and cancelling executions. */
function executionWrites(ctx: StoreContext) {
  return {
    async createExecution(e: NewExecution, sims: NewSimulation[]): Promise<void> {
      const stored = executionRow(e);
      const values = { ...stored, workspace_id: e.workspaceId, status: 'queued' };
      await ctx.atomic(async (db) => {
        // Executions created together number their simulations one after the other: PostgreSQL's
        // servers take turns here until the transaction ends (SQLite writes one at a time anyway).
        await ctx.dialect.transactionLock('simulations.seq').execute(db);
        await db
          .insertInto('executions')
          .values(values as Insertable<Executions>)
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
