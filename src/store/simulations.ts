import type { AudioSummary, SimulationMode } from '../domain/audio.js';
import type { LineChoice, SimulationLine } from '../domain/callers.js';
import type { MetricResult, Turn, Usage } from '../domain/simulations.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { fromJson, toJson } from './db.js';
import { pageOf, valueList, type StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';
import { PASS_RATE, countWhere } from './usage.js';

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

/** The names, now, of what a simulation ran (screens show names, not ids); null once deleted. */
export interface RunNames {
  scenario_name: string | null;
  persona_name: string | null;
  agent_name: string | null;
}

const RUN_NAMES_SQL = `(SELECT name FROM scenarios WHERE id = s.scenario_id) AS scenario_name,
  (SELECT name FROM personas WHERE id = s.persona_id) AS persona_name,
  (SELECT name FROM agents WHERE id = s.agent_id) AS agent_name`;

const namesOf = (r: RunNames): RunNames => ({
  scenario_name: r.scenario_name,
  persona_name: r.persona_name,
  agent_name: r.agent_name,
});

export interface SimulationSummary extends RunNames {
  id: string;
  execution_id: string;
  scenario_id: string;
  persona_id: string | null;
  agent_id: string | null;
  channel: string;
  mode: SimulationMode;
  status: Simulation['status'];
  created_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  score: number | null;
  passed: boolean | null;
  turn_count: number;
  error: string | null;
}

/** A simulation of an agent that ended (scored, or in error): what its analytics read. */
export interface EndedForAgent {
  score: number | null;
  results: MetricResult[];
  status: 'completed' | 'failed';
  passed: boolean | null;
  at: string;
}

interface SimRow {
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

const simFromRow = (r: SimRow): Simulation => ({
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
const SIM_COLUMNS = sql.raw(
  's.id, s.execution_id, s.scenario_id, s.persona_id, s.agent_id, s.channel, s.mode, s.status, s.created_at, s.started_at, s.ended_at, s.duration_ms, s.end_reason, s.turns, s.score, s.passed, s.results, s.usage, s.audio, s.recording, s.line, s.error, s.attempts, s.workspace_id',
);

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

/**
 * One claim of a simulation: its token (unique to the claim, so a server that lost a claim and
 * claimed the simulation again cannot renew or record the old run), and how long it holds
 * unless renewed, timed by the database's clock.
 */
export interface Lease {
  owner: string;
  ms: number;
}

/** Runs of one simulation before it fails: a simulation that kills its server is not run forever. */
const MAX_ATTEMPTS = 3;

/** Rows per INSERT of many simulations: well below either database's limit of bound values. */
const CHUNK = 500;

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
    /** An execution's variables alone (what each of its simulations needs to start). */
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

/** An ended audio call as figures over calls read it. */
export interface AudioCall {
  audio: AudioSummary;
  latencies: number[];
}

/** A simulation ended by the queue's housekeeping rather than by its run. */
export interface EndedHere {
  id: string;
  execution_id: string;
  status: 'failed' | 'cancelled';
}

/** Running simulations of cancelled executions (those `which` also holds for) end cancelled now. */
async function endCancelled(
  tx: Kysely<Tables>,
  at: string,
  which: RawBuilder<boolean>,
): Promise<{ id: string; execution_id: string }[]> {
  return tx
    .updateTable('simulations')
    .set({ status: 'cancelled', ended_at: at, lease_owner: null })
    .where('status', '=', 'running')
    .where(which)
    .where('execution_id', 'in', (q) =>
      q.selectFrom('executions').select('id').where('cancelled_at', 'is not', null),
    )
    .returning(['id', 'execution_id'])
    .execute();
}

/** The work queue: claiming simulations and keeping them claimed. */
function simulationQueue(ctx: StoreContext) {
  return {
    /**
     * Takes the oldest queued simulation and marks it running under the caller's lease (one
     * transaction: never twice). On PostgreSQL the row is locked as it is picked, and a row
     * another server is claiming is skipped for the next one.
     */
    claim(
      at: string,
      lease: Lease,
    ): Promise<(Simulation & { workspace_id: string; attempts: number }) | undefined> {
      return ctx.atomic(async (tx) => {
        const { rows } = await sql<SimRow>`SELECT ${SIM_COLUMNS} FROM simulations s
          WHERE s.status = 'queued' ORDER BY s.seq LIMIT 1 ${ctx.dialect.forUpdateSkipLocked()}`.execute(
          tx,
        );
        const row = rows[0];
        if (!row) return undefined;
        await tx
          .updateTable('simulations')
          .set({
            status: 'running',
            started_at: at,
            attempts: sql`attempts + 1`,
            lease_owner: lease.owner,
            lease_until_ms: sql`${ctx.dialect.nowMs()} + ${lease.ms}`,
          })
          .where('id', '=', row.id)
          .execute();
        return {
          ...simFromRow({ ...row, status: 'running', started_at: at }),
          workspace_id: row.workspace_id,
          attempts: row.attempts + 1,
        };
      });
    },
    /**
     * Extends these claims of running simulations by `ms`; answers the ids whose claim still
     * holds (one missing was taken back after its lease lapsed, or ended by a cancel).
     */
    async renewLeases(claims: { id: string; owner: string }[], ms: number): Promise<Set<string>> {
      const kept = new Set<string>();
      // One short UPDATE per claim: a server holds a handful, renewed every few seconds.
      for (const c of claims) {
        const row = await ctx.db
          .updateTable('simulations')
          .set({ lease_until_ms: sql`${ctx.dialect.nowMs()} + ${ms}` })
          .where('id', '=', c.id)
          .where('lease_owner', '=', c.owner)
          .where('status', '=', 'running')
          .returning('id')
          .executeTakeFirst();
        if (row) kept.add(row.id);
      }
      return kept;
    },
  };
}

/** Taking simulations back from servers that stopped while running them. */
function simulationRecovery(ctx: StoreContext) {
  return {
    /**
     * A server stopping in good order hands back the simulations it was running: they go back to
     * the queue at once for another server, without counting the attempt it could not finish.
     */
    async releaseLeases(ownerPrefix: string, at: string): Promise<number> {
      const owned = sql<boolean>`substr(lease_owner, 1, ${ownerPrefix.length}) = ${ownerPrefix}`;
      return ctx.atomic(async (tx) => {
        // Those of a cancelled execution end cancelled: running them again would undo the cancel.
        await endCancelled(tx, at, owned);
        const result = await tx
          .updateTable('simulations')
          .set({
            status: 'queued',
            started_at: null,
            turns: '[]',
            lease_owner: null,
            attempts: sql`attempts - 1`,
          })
          .where('status', '=', 'running')
          .where(owned)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      });
    },
    /**
     * Running simulations whose lease lapsed (their server died) go back to the queue, to run
     * again from the start; those that have had three attempts fail instead, and those of a
     * cancelled execution end cancelled. Answers which ended, for who listens.
     */
    requeueLapsed(at: string): Promise<{ requeued: number; ended: EndedHere[] }> {
      return ctx.atomic(async (tx) => {
        // No lease at all: running since before leases were recorded (an upgrade), or left by a
        // crash of a build without them; nobody holds it.
        const lapsed = sql<boolean>`(lease_until_ms < ${ctx.dialect.nowMs()} OR lease_until_ms IS NULL)`;
        const cancelled = await endCancelled(tx, at, lapsed);
        const failed = await tx
          .updateTable('simulations')
          .set({
            status: 'failed',
            ended_at: at,
            end_reason: 'error',
            error: 'its server stopped three times while running it',
            lease_owner: null,
          })
          .where('status', '=', 'running')
          .where(lapsed)
          .where('attempts', '>=', MAX_ATTEMPTS)
          .returning(['id', 'execution_id'])
          .execute();
        const requeued = await tx
          .updateTable('simulations')
          .set({ status: 'queued', started_at: null, turns: '[]', lease_owner: null })
          .where('status', '=', 'running')
          .where(lapsed)
          .executeTakeFirst();
        return {
          requeued: Number(requeued.numUpdatedRows),
          ended: [
            ...cancelled.map((r) => ({ ...r, status: 'cancelled' as const })),
            ...failed.map((r) => ({ ...r, status: 'failed' as const })),
          ],
        };
      });
    },
    /** After a crash: running simulations start again from the start, at most twice more, else fail. */
    recover(at: string): Promise<number> {
      return ctx.atomic(async (tx) => {
        await endCancelled(tx, at, sql<boolean>`1 = 1`);
        await tx
          .updateTable('simulations')
          .set({
            status: 'failed',
            ended_at: at,
            end_reason: 'error',
            error: 'interrupted three times',
          })
          .where('status', '=', 'running')
          .where('attempts', '>=', MAX_ATTEMPTS)
          .execute();
        const requeued = await tx
          .updateTable('simulations')
          .set({ status: 'queued', started_at: null, turns: '[]' })
          .where('status', '=', 'running')
          .executeTakeFirst();
        return Number(requeued.numUpdatedRows);
      });
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

/** Figures other domains read from simulations (alerts, agent analytics). */
function simulationFigures({ db }: StoreContext) {
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
      const { rows } = await sql<{ audio: string; turns: string }>`SELECT audio, turns
        FROM simulations
        WHERE ${which} AND mode = 'audio' AND audio IS NOT NULL
          AND status IN ('completed', 'failed')`.execute(db);
      return rows.map((r) => ({
        audio: fromJson<AudioSummary>(r.audio),
        latencies: fromJson<Turn[]>(r.turns).flatMap((t) =>
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
      const { rows } = await sql<
        Omit<EndedForAgent, 'results' | 'passed'> & { results: string; passed: number | null }
      >`SELECT score, results, status, passed, COALESCE(ended_at, created_at) AS at
        FROM simulations
        WHERE agent_id = ${agentId} AND status IN ('completed', 'failed')
          AND COALESCE(ended_at, created_at) >= ${fromIso}
          AND COALESCE(ended_at, created_at) <= ${toIso}`.execute(db);
      return rows.map((r) => ({
        score: r.score,
        results: fromJson<MetricResult[]>(r.results),
        status: r.status,
        passed: r.passed === null ? null : r.passed === 1,
        at: r.at,
      }));
    },
  };
}

/** Executions and their simulations; queued simulations are the persistent work queue. */
export function createSimulationStore(ctx: StoreContext) {
  const execution = async (workspaceId: string, id: string): Promise<Execution | undefined> =>
    (await readExecutions(ctx.db, workspaceId, [id])).get(id);
  return {
    ...executionWrites(ctx),
    ...executionReads(ctx),
    ...simulationReads(ctx),
    ...simulationQueue(ctx),
    ...simulationRecovery(ctx),
    ...simulationEnds(ctx),
    ...simulationFigures(ctx),
    execution,
  };
}

export type SimulationStore = ReturnType<typeof createSimulationStore>;
