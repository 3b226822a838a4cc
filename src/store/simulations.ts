import type { MetricResult, Turn, Usage } from '../domain/simulations.js';
import { fromJson, pageOf, prepared, toJson, type Db } from './db.js';
import { PASS_RATE } from './usage.js';

export interface Simulation {
  id: string;
  execution_id: string;
  scenario_id: string;
  persona_id: string | null;
  agent_id: string | null;
  channel: string;
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
  error?: string;
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
  status: Simulation['status'];
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  turns: string;
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
  ...(r.error ? { error: r.error } : {}),
});

const round = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);

/** An executions row as SQLite answers it. */
interface ExecutionRow {
  id: string;
  scenario_id: string;
  scenario_name: string | null;
  estimated_completion: string | null;
  created_at: string;
  variables: string;
  runs: number;
  channel: string | null;
  cancelled_at: string | null;
}

/** An execution with its counts, average score, pass rate and status, as they are now. */
function readExecution(db: Db, workspaceId: string, id: string): Execution | undefined {
  const e = prepared(
    db,
    `SELECT e.*, (SELECT name FROM scenarios WHERE id = e.scenario_id) AS scenario_name
     FROM executions e WHERE e.workspace_id = ? AND e.id = ?`,
  ).get(workspaceId, id) as ExecutionRow | undefined;
  if (!e) return undefined;
  const rows = prepared(
    db,
    'SELECT status, COUNT(*) AS n FROM simulations WHERE execution_id = ? GROUP BY status',
  ).all(id) as { status: string; n: number }[];
  const counts = {
    queued: 0,
    running: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
  } as Execution['counts'];
  for (const r of rows) counts[r.status as keyof Execution['counts']] = r.n;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const agg = prepared(
    db,
    `SELECT AVG(score) AS avg, ${PASS_RATE} AS rate FROM simulations WHERE execution_id = ? AND status IN ('completed', 'failed')`,
  ).get(id) as { avg: number | null; rate: number | null };
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
  return {
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
    counts,
    avg_score: round(agg.avg),
    pass_rate: round(agg.rate),
  };
}

/** Creating and cancelling executions. */
function executionWrites(db: Db) {
  return {
    createExecution(
      e: {
        id: string;
        workspaceId: string;
        scenarioId: string;
        variables: Record<string, string>;
        runs: number;
        channel: string | null;
        created_at: string;
        estimated_completion: string;
      },
      sims: { id: string; persona_id: string; agent_id: string; channel: string }[],
    ): void {
      db.transaction(() => {
        prepared(
          db,
          'INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, variables, runs, channel, estimated_completion) VALUES (?,?,?,?,?,?,?,?,?)',
        ).run(
          e.id,
          e.workspaceId,
          e.scenarioId,
          'queued',
          e.created_at,
          toJson(e.variables),
          e.runs,
          e.channel,
          e.estimated_completion,
        );
        const next =
          (prepared(db, 'SELECT COALESCE(MAX(seq), 0) FROM simulations').pluck().get() as number) +
          1;
        const insert = prepared(
          db,
          "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, persona_id, agent_id, channel, status, created_at, seq) VALUES (?,?,?,?,?,?,?,'queued',?,?)",
        );
        sims.forEach((s, i) =>
          insert.run(
            s.id,
            e.workspaceId,
            e.id,
            e.scenarioId,
            s.persona_id,
            s.agent_id,
            s.channel,
            e.created_at,
            next + i,
          ),
        );
      })();
    },
    cancel(workspaceId: string, executionId: string, at: string): void {
      db.transaction(() => {
        prepared(
          db,
          'UPDATE executions SET cancelled_at = ? WHERE workspace_id = ? AND id = ? AND cancelled_at IS NULL',
        ).run(at, workspaceId, executionId);
        prepared(
          db,
          "UPDATE simulations SET status = 'cancelled', ended_at = ? WHERE execution_id = ? AND status = 'queued'",
        ).run(at, executionId);
      })();
    },
  };
}

/** Executions as they are now, a page at a time. */
function executionReads(db: Db) {
  return {
    listExecutions(
      workspaceId: string,
      limit: number,
      offset: number,
    ): { items: Execution[]; total: number } {
      const { rows, total } = pageOf<{ id: string }>(
        db,
        {
          select: 'id',
          from: 'executions WHERE workspace_id = ?',
          order: 'created_at DESC, rowid DESC',
          args: [workspaceId],
        },
        { limit, offset },
      );
      return { items: rows.map((r) => readExecution(db, workspaceId, r.id)!), total };
    },
    /** An execution's variables alone (what each of its simulations needs to start). */
    variablesOf(executionId: string): Record<string, string> | undefined {
      const text = prepared(db, 'SELECT variables FROM executions WHERE id = ?')
        .pluck()
        .get(executionId) as string | undefined;
      return text === undefined ? undefined : fromJson(text);
    },
    isCancelled(executionId: string): boolean {
      return (
        prepared(db, 'SELECT cancelled_at IS NOT NULL FROM executions WHERE id = ?')
          .pluck()
          .get(executionId) === 1
      );
    },
  };
}

/** Simulations with their names, whole or as summaries for long lists. */
function simulationReads(db: Db) {
  return {
    simulationsOf(executionId: string): (Simulation & RunNames)[] {
      return (
        prepared(
          db,
          `SELECT s.*, ${RUN_NAMES_SQL} FROM simulations s WHERE execution_id = ? ORDER BY seq`,
        ).all(executionId) as (SimRow & RunNames)[]
      ).map((r) => ({ ...simFromRow(r), ...namesOf(r) }));
    },
    /** A page of simulations without their turns and results (long lists); newest first. */
    listSummaries(
      workspaceId: string,
      q: { executionId?: string; limit: number; offset: number },
    ): { items: SimulationSummary[]; total: number } {
      const where = q.executionId ? 'workspace_id = ? AND execution_id = ?' : 'workspace_id = ?';
      const args = q.executionId ? [workspaceId, q.executionId] : [workspaceId];
      const { rows, total } = pageOf<
        Omit<SimulationSummary, 'passed' | 'error'> & {
          passed: number | null;
          error: string | null;
        }
      >(
        db,
        {
          select: `id, execution_id, scenario_id, persona_id, agent_id, ${RUN_NAMES_SQL},
        channel, status, created_at, ended_at, duration_ms, end_reason, score, passed,
        json_array_length(turns) AS turn_count, error`,
          from: `simulations s WHERE ${where}`,
          order: 'seq DESC',
          args,
        },
        q,
      );
      return {
        items: rows.map((r) => ({
          ...r,
          passed: r.passed === null ? null : r.passed === 1,
          error: r.error,
        })),
        total,
      };
    },
    simulation(workspaceId: string, id: string): (Simulation & RunNames) | undefined {
      const row = prepared(
        db,
        `SELECT s.*, ${RUN_NAMES_SQL} FROM simulations s WHERE workspace_id = ? AND id = ?`,
      ).get(workspaceId, id) as (SimRow & RunNames) | undefined;
      return row && { ...simFromRow(row), ...namesOf(row) };
    },
  };
}

/** The work queue: claiming, finishing and recovering simulations. */
function simulationQueue(db: Db) {
  return {
    /** Takes the oldest queued simulation and marks it running (one transaction: never twice). */
    claim(at: string): (Simulation & { workspace_id: string; attempts: number }) | undefined {
      return db.transaction(() => {
        const row = prepared(
          db,
          "SELECT * FROM simulations WHERE status = 'queued' ORDER BY seq LIMIT 1",
        ).get() as SimRow | undefined;
        if (!row) return undefined;
        prepared(
          db,
          "UPDATE simulations SET status = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ?",
        ).run(at, row.id);
        return {
          ...simFromRow({ ...row, status: 'running', started_at: at }),
          workspace_id: row.workspace_id,
          attempts: row.attempts + 1,
        };
      })();
    },
    finish(
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
      > & { error?: string },
    ): void {
      prepared(
        db,
        `UPDATE simulations SET status = ?, ended_at = ?, duration_ms = ?, end_reason = ?, turns = ?, score = ?, passed = ?, results = ?, usage = ?, error = ?
        WHERE id = ? AND status = 'running'`,
      ).run(
        r.status,
        r.ended_at,
        r.duration_ms,
        r.end_reason,
        toJson(r.turns),
        r.score,
        r.passed === null ? null : Number(r.passed),
        toJson(r.results),
        toJson(r.usage),
        r.error ?? null,
        id,
      );
    },
    status(id: string): string | undefined {
      return prepared(db, 'SELECT status FROM simulations WHERE id = ?').pluck().get(id) as
        string | undefined;
    },
    /** After a crash: running simulations start again from the start, at most twice more, else fail. */
    recover(at: string): number {
      return db.transaction(() => {
        prepared(
          db,
          "UPDATE simulations SET status = 'failed', ended_at = ?, end_reason = 'error', error = 'interrupted three times' WHERE status = 'running' AND attempts >= 3",
        ).run(at);
        return prepared(
          db,
          "UPDATE simulations SET status = 'queued', started_at = NULL, turns = '[]' WHERE status = 'running'",
        ).run().changes;
      })();
    },
  };
}

/** Figures other domains read from simulations (alerts, agent analytics). */
function simulationFigures(db: Db) {
  return {
    /** Average score of an agent's simulations that ran (since a time, when given), and how many were scored. */
    agentScore(agentId: string, sinceIso = ''): { avg: number | null; n: number } {
      return prepared(
        db,
        "SELECT AVG(score) AS avg, COUNT(score) AS n FROM simulations WHERE agent_id = ? AND status IN ('completed', 'failed') AND COALESCE(ended_at, created_at) >= ?",
      ).get(agentId, sinceIso) as { avg: number | null; n: number };
    },
    /** Pass rate (percent) of the scenario's simulations in executions that schedules started. */
    scheduledPassRate(scenarioId: string, sinceIso: string): { rate: number | null; n: number } {
      return prepared(
        db,
        `SELECT ${PASS_RATE} AS rate, COUNT(passed) + SUM(status = 'failed' AND passed IS NULL) AS n FROM simulations
        WHERE scenario_id = ? AND status IN ('completed', 'failed') AND COALESCE(ended_at, created_at) >= ?
          AND execution_id IN (SELECT execution_id FROM schedule_runs WHERE trig = 'schedule' AND execution_id IS NOT NULL)`,
      ).get(scenarioId, sinceIso) as { rate: number | null; n: number };
    },
    /** Scores and metric results of an agent's simulations that ran between two times. */
    scoredForAgent(agentId: string, fromIso: string, toIso: string): EndedForAgent[] {
      return (
        prepared(
          db,
          `SELECT score, results, status, passed, COALESCE(ended_at, created_at) AS at FROM simulations
        WHERE agent_id = ? AND status IN ('completed', 'failed') AND COALESCE(ended_at, created_at) >= ? AND COALESCE(ended_at, created_at) <= ?`,
        ).all(agentId, fromIso, toIso) as (Omit<EndedForAgent, 'results' | 'passed'> & {
          results: string;
          passed: number | null;
        })[]
      ).map((r) => ({
        ...r,
        passed: r.passed === null ? null : r.passed === 1,
        results: fromJson<MetricResult[]>(r.results),
      }));
    },
  };
}

/** Executions and their simulations; queued simulations are the persistent work queue. */
export function createSimulationStore(db: Db) {
  const execution = (workspaceId: string, id: string) => readExecution(db, workspaceId, id);
  return {
    ...executionWrites(db),
    ...executionReads(db),
    ...simulationReads(db),
    ...simulationQueue(db),
    ...simulationFigures(db),
    execution,
  };
}

export type SimulationStore = ReturnType<typeof createSimulationStore>;
