import type { ScriptLine } from '../domain/scenarios.js';
import {
  fromJson,
  patchRow,
  placeholders,
  prepared,
  toJson,
  type ColumnMap,
  type Db,
} from './db.js';
import type { User } from './personas.js';
import { ERRORED, PASS_RATE, RAN } from './usage.js';

export interface PromptVariable {
  name: string;
  type: string;
  defaultValue: string;
}

export interface Scenario {
  id: string;
  name: string;
  prompt: string;
  promptVariables: PromptVariable[];
  personas: string[];
  targetAgents: string[];
  scorecard: string | null;
  tags: string[];
  expectedOutcome: string | null;
  expectedBehavior: { toolCalls?: string[]; providesTrackingInfo?: boolean } | null;
  script: ScriptLine[] | null;
  maxTurns: number | null;
  maxDurationMs: number | null;
  created_at: string;
  updated_at: string;
  created_by: User;
}

export interface ScenarioStats {
  total_simulations: number;
  errored_simulations: number;
  avg_score: number | null;
  success_rate: number | null;
  last_run: string | null;
}

export interface ScenarioQuery {
  name?: string;
  tags?: string[];
  sortBy: 'name' | 'createdAt' | 'updatedAt' | 'usage';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface WorkspaceScenarioStats {
  total_scenarios: number;
  active_scenarios: number;
  total_simulations: number;
  errored_simulations: number;
  avg_score_last_30_days: number | null;
  most_used_scenario: { id: string; name: string; simulation_count: number } | null;
}

interface Row {
  id: string;
  name: string;
  prompt: string;
  prompt_variables: string;
  personas: string;
  target_agents: string;
  scorecard_id: string | null;
  tags: string;
  expected_outcome: string | null;
  expected_behavior: string | null;
  script: string | null;
  max_turns: number | null;
  max_duration_ms: number | null;
  created_at: string;
  updated_at: string;
  created_by_id: string;
  created_by_name: string;
}

const fromRow = (r: Row): Scenario => ({
  id: r.id,
  name: r.name,
  prompt: r.prompt,
  promptVariables: fromJson(r.prompt_variables),
  personas: fromJson(r.personas),
  targetAgents: fromJson(r.target_agents),
  scorecard: r.scorecard_id,
  tags: fromJson(r.tags),
  expectedOutcome: r.expected_outcome,
  expectedBehavior: fromJson(r.expected_behavior),
  script: fromJson(r.script),
  maxTurns: r.max_turns,
  maxDurationMs: r.max_duration_ms,
  created_at: r.created_at,
  updated_at: r.updated_at,
  created_by: { id: r.created_by_id, name: r.created_by_name },
});

const PATCH_COLUMNS: ColumnMap = {
  name: { column: 'name' },
  prompt: { column: 'prompt' },
  promptVariables: { column: 'prompt_variables', json: true },
  personas: { column: 'personas', json: true },
  targetAgents: { column: 'target_agents', json: true },
  scorecard: { column: 'scorecard_id' },
  tags: { column: 'tags', json: true },
  expectedOutcome: { column: 'expected_outcome' },
  expectedBehavior: { column: 'expected_behavior', json: true },
  script: { column: 'script', json: true },
  maxTurns: { column: 'max_turns' },
  maxDurationMs: { column: 'max_duration_ms' },
};

const SORT_COLUMNS: Record<ScenarioQuery['sortBy'], string> = {
  name: 's.name COLLATE NOCASE',
  createdAt: 's.created_at',
  updatedAt: 's.updated_at',
  usage: `(SELECT COUNT(*) FROM simulations m WHERE m.scenario_id = s.id AND m.${RAN})`,
};

const pct = (n: number | null): number | null => (n === null ? null : Math.round(n * 100) / 100);

/** One scenario of a workspace. */
function readScenario(db: Db, workspaceId: string, id: string): Scenario | undefined {
  const row = prepared(db, 'SELECT * FROM scenarios WHERE workspace_id = ? AND id = ?').get(
    workspaceId,
    id,
  ) as Row | undefined;
  return row && fromRow(row);
}

/** The statistics of several scenarios in one query (a page of the list). */
function scenarioStats(db: Db, ids: string[]): Map<string, ScenarioStats> {
  const rows = db
    .prepare(
      `SELECT scenario_id AS id, COUNT(*) AS total, AVG(score) AS avg, ${PASS_RATE} AS rate,
              ${ERRORED} AS errored, MAX(COALESCE(ended_at, started_at, created_at)) AS last
       FROM simulations WHERE scenario_id IN (${placeholders(ids.length)}) AND ${RAN}
       GROUP BY scenario_id`,
    )
    .all(...ids) as {
    id: string;
    total: number;
    avg: number | null;
    rate: number | null;
    errored: number;
    last: string | null;
  }[];
  const found = new Map(rows.map((r) => [r.id, r]));
  return new Map(
    ids.map((id) => {
      const r = found.get(id);
      return [
        id,
        {
          total_simulations: r?.total ?? 0,
          errored_simulations: r?.errored ?? 0,
          avg_score: pct(r?.avg ?? null),
          success_rate: pct(r?.rate ?? null),
          last_run: r?.last ?? null,
        },
      ];
    }),
  );
}

/** Saving scenarios. */
function scenarioWrites(db: Db) {
  return {
    insert(workspaceId: string, s: Scenario): Scenario {
      db.prepare(
        `INSERT INTO scenarios (id, workspace_id, name, prompt, prompt_variables, personas, target_agents, scorecard_id,
           tags, expected_outcome, expected_behavior, script, max_turns, max_duration_ms, created_at, updated_at,
           created_by_id, created_by_name) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      ).run(
        s.id,
        workspaceId,
        s.name,
        s.prompt,
        toJson(s.promptVariables),
        toJson(s.personas),
        toJson(s.targetAgents),
        s.scorecard,
        toJson(s.tags),
        s.expectedOutcome,
        s.expectedBehavior === null ? null : toJson(s.expectedBehavior),
        s.script === null ? null : toJson(s.script),
        s.maxTurns,
        s.maxDurationMs,
        s.created_at,
        s.updated_at,
        s.created_by.id,
        s.created_by.name,
      );
      return s;
    },
    update(
      workspaceId: string,
      id: string,
      patch: Partial<Scenario>,
      updatedAt: string,
    ): Scenario | undefined {
      const changed = patchRow(db, {
        table: 'scenarios',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: { sql: 'workspace_id = ? AND id = ?', args: [workspaceId, id] },
      });
      return changed ? readScenario(db, workspaceId, id) : undefined;
    },
    delete(workspaceId: string, id: string): boolean {
      return (
        db.prepare('DELETE FROM scenarios WHERE workspace_id = ? AND id = ?').run(workspaceId, id)
          .changes > 0
      );
    },
  };
}

/** Finding scenarios: a filtered page, and those that use a persona, agent or scorecard. */
function scenarioReads(db: Db) {
  return {
    existsAnywhere(id: string): boolean {
      return db.prepare('SELECT 1 FROM scenarios WHERE id = ?').get(id) !== undefined;
    },
    list(workspaceId: string, q: ScenarioQuery): { items: Scenario[]; total: number } {
      const where = ['s.workspace_id = ?'];
      const args: unknown[] = [workspaceId];
      if (q.name) {
        where.push("s.name LIKE ? ESCAPE '\\'");
        args.push(`%${q.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
      for (const tag of q.tags ?? []) {
        where.push('EXISTS (SELECT 1 FROM json_each(s.tags) t WHERE lower(t.value) = lower(?))');
        args.push(tag);
      }
      const filter = where.join(' AND ');
      const total = (
        db.prepare(`SELECT COUNT(*) AS n FROM scenarios s WHERE ${filter}`).get(...args) as {
          n: number;
        }
      ).n;
      const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
      const rows = db
        .prepare(
          `SELECT * FROM scenarios s WHERE ${filter} ORDER BY ${SORT_COLUMNS[q.sortBy]} ${dir}, s.id ${dir} LIMIT ? OFFSET ?`,
        )
        .all(...args, q.limit, q.offset) as Row[];
      return { items: rows.map(fromRow), total };
    },
    /**
     * Scenarios whose JSON list column holds the id (to refuse deleting what is in use): in one
     * workspace, or in all of them (null) for agents, which belong to no workspace.
     */
    referencing(
      workspaceId: string | null,
      column: 'personas' | 'target_agents',
      id: string,
    ): { id: string; name: string }[] {
      return db
        .prepare(
          `SELECT s.id, s.name FROM scenarios s WHERE (? IS NULL OR s.workspace_id = ?) AND EXISTS (SELECT 1 FROM json_each(s.${column}) j WHERE j.value = ?) ORDER BY s.name`,
        )
        .all(workspaceId, workspaceId, id) as { id: string; name: string }[];
    },
    usingScorecard(workspaceId: string, scorecardId: string): { id: string; name: string }[] {
      return db
        .prepare(
          'SELECT id, name FROM scenarios WHERE workspace_id = ? AND scorecard_id = ? ORDER BY name',
        )
        .all(workspaceId, scorecardId) as { id: string; name: string }[];
    },
  };
}

/** Statistics of a scenario, and of a whole workspace. */
function scenarioFigures(db: Db) {
  return {
    stats(id: string): ScenarioStats {
      return scenarioStats(db, [id]).get(id)!;
    },
    workspaceStats(workspaceId: string, since30d: string): WorkspaceScenarioStats {
      const totals = db
        .prepare(
          `SELECT (SELECT COUNT(*) FROM scenarios WHERE workspace_id = @ws) AS total_scenarios,
                (SELECT COUNT(*) FROM scenarios s WHERE s.workspace_id = @ws AND (
                   EXISTS (SELECT 1 FROM schedules h WHERE h.scenario_id = s.id AND h.is_active = 1)
                   OR EXISTS (SELECT 1 FROM simulations m WHERE m.scenario_id = s.id AND m.created_at >= @since))) AS active_scenarios,
                (SELECT COUNT(*) FROM simulations WHERE workspace_id = @ws AND ${RAN}) AS total_simulations,
                (SELECT ${ERRORED} FROM simulations WHERE workspace_id = @ws) AS errored_simulations,
                (SELECT AVG(score) FROM simulations WHERE workspace_id = @ws AND ${RAN} AND created_at >= @since) AS avg30`,
        )
        .get({ ws: workspaceId, since: since30d }) as Omit<
        WorkspaceScenarioStats,
        'most_used_scenario' | 'avg_score_last_30_days'
      > & { avg30: number | null };
      const top = db
        .prepare(
          `SELECT s.id, s.name, COUNT(*) AS simulation_count FROM simulations m JOIN scenarios s ON s.id = m.scenario_id
         WHERE m.workspace_id = ? AND m.${RAN} GROUP BY s.id ORDER BY simulation_count DESC, s.name LIMIT 1`,
        )
        .get(workspaceId) as WorkspaceScenarioStats['most_used_scenario'] | undefined;
      return {
        total_scenarios: totals.total_scenarios,
        active_scenarios: totals.active_scenarios,
        total_simulations: totals.total_simulations,
        errored_simulations: totals.errored_simulations,
        avg_score_last_30_days: pct(totals.avg30),
        most_used_scenario: top ?? null,
      };
    },
  };
}

export function createScenarioStore(db: Db) {
  const get = (workspaceId: string, id: string) => readScenario(db, workspaceId, id);
  const statsOf = (ids: string[]) => scenarioStats(db, ids);
  return {
    ...scenarioWrites(db),
    ...scenarioReads(db),
    ...scenarioFigures(db),
    get,
    /** The statistics of several scenarios in one query (a page of the list). */
    statsOf,
  };
}

export type ScenarioStore = ReturnType<typeof createScenarioStore>;
