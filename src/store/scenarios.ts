import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import type {
  PromptVariable,
  Scenario,
  ScenarioPatch,
  ScenarioStats,
  WorkspaceScenarioStats,
} from '../domain/scenarios.js';
import { recordColumns } from './record-columns.js';
import { pageOf, patchRow, valueList, type StoreContext } from './sql/query.js';
import type { Scenarios, Tables } from './sql/tables.js';
import { ERRORED, PASS_RATE, RAN } from './usage.js';

// Imported from here by the conversation and the simulations.
export type { PromptVariable, Scenario, ScenarioPatch };

export interface ScenarioQuery {
  name?: string;
  tags?: string[];
  sortBy: 'name' | 'createdAt' | 'updatedAt' | 'usage';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The scenario's columns in the `scenarios` table (besides `workspace_id`), in answer order. */
const COLUMNS = recordColumns<Scenario>({
  id: { column: 'id' },
  key: { column: 'key' },
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
  audio: { column: 'audio', json: true },
  cases: { column: 'cases', json: true },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
  created_by: { columns: { id: 'created_by_id', name: 'created_by_name' } },
});

type Row = Record<string, unknown>;

const PATCH_COLUMNS = COLUMNS.patchColumns(['id', 'key', 'created_at', 'updated_at', 'created_by']);

/** The columns of a scenario, from `scenarios s`. */
const SELECT = sql.raw(COLUMNS.selectList('s', Object.keys(COLUMNS.fields)));

/** ORDER BY keys of each sort; usage counts the simulations each scenario ran. */
const sortKey = (ctx: StoreContext, by: ScenarioQuery['sortBy']): RawBuilder<unknown> =>
  ({
    name: () => ctx.dialect.caseless('s.name'),
    createdAt: () => sql`s.created_at`,
    updatedAt: () => sql`s.updated_at`,
    usage: () =>
      sql`(SELECT COUNT(*) FROM simulations m WHERE m.scenario_id = s.id AND ${sql.raw(`m.${RAN}`)})`,
  })[by]();

const pct = (n: number | null): number | null => (n === null ? null : Math.round(n * 100) / 100);

/** One scenario of a workspace. */
async function readScenario(
  db: Kysely<Tables>,
  workspaceId: string,
  id: string,
): Promise<Scenario | undefined> {
  const { rows } = await sql<Row>`SELECT ${SELECT} FROM scenarios s
    WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}`.execute(db);
  return rows[0] && COLUMNS.fromRow(rows[0]);
}

/** A row of scenarioStats' query. */
interface StatsRow {
  id: string;
  total: number;
  avg: number | null;
  rate: number | null;
  errored: number;
  last: string | null;
}

/** The statistics of several scenarios in one query (a page of the list). */
async function scenarioStats(
  db: Kysely<Tables>,
  ids: string[],
): Promise<Map<string, ScenarioStats>> {
  const found = new Map<string, StatsRow>();
  if (ids.length > 0) {
    const { rows } = await sql<StatsRow>`SELECT scenario_id AS id, COUNT(*) AS total,
        AVG(score) AS avg, ${sql.raw(PASS_RATE)} AS rate, ${sql.raw(ERRORED)} AS errored,
        MAX(COALESCE(ended_at, started_at, created_at)) AS last
      FROM simulations WHERE scenario_id IN (${valueList(ids)}) AND ${sql.raw(RAN)}
      GROUP BY scenario_id`.execute(db);
    for (const r of rows) found.set(r.id, r);
  }
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
function scenarioWrites({ db }: StoreContext) {
  return {
    async insert(workspaceId: string, s: Scenario): Promise<Scenario> {
      const values = { workspace_id: workspaceId, ...COLUMNS.toRow(s) } as Insertable<Scenarios>;
      await db.insertInto('scenarios').values(values).execute();
      return s;
    },
    async update(
      workspaceId: string,
      id: string,
      patch: ScenarioPatch,
      updatedAt: string,
    ): Promise<Scenario | undefined> {
      const changed = await patchRow(db, {
        table: 'scenarios',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: sql`workspace_id = ${workspaceId} AND id = ${id}`,
      });
      return changed ? readScenario(db, workspaceId, id) : undefined;
    },
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('scenarios')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** A page of a workspace's scenarios, filtered by name and tags, and sorted. */
async function listScenarios(
  ctx: StoreContext,
  workspaceId: string,
  q: ScenarioQuery,
): Promise<{ items: Scenario[]; total: number }> {
  const where: RawBuilder<unknown>[] = [sql`s.workspace_id = ${workspaceId}`];
  if (q.name) where.push(ctx.dialect.containsCaseless('s.name', q.name));
  for (const tag of q.tags ?? [])
    where.push(ctx.dialect.jsonArrayHas('s.tags', tag, { caseless: true }));
  const dir = sql.raw(q.sortOrder === 'asc' ? 'ASC' : 'DESC');
  const { rows, total } = await pageOf<Row>(
    ctx.db,
    {
      select: SELECT,
      from: sql`scenarios s WHERE ${sql.join(where, sql` AND `)}`,
      order: sql`${sortKey(ctx, q.sortBy)} ${dir}, s.id ${dir}`,
    },
    q,
  );
  return { items: rows.map(COLUMNS.fromRow), total };
}

/** Finding scenarios: a filtered page, and those that use a persona, agent or scorecard. */
function scenarioReads(ctx: StoreContext) {
  const { db } = ctx;
  return {
    async existsAnywhere(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('scenarios')
        .select('id')
        .where('id', '=', id)
        .executeTakeFirst();
      return row !== undefined;
    },
    list: (workspaceId: string, q: ScenarioQuery): Promise<{ items: Scenario[]; total: number }> =>
      listScenarios(ctx, workspaceId, q),
    /**
     * Scenarios whose JSON list column holds the id (to refuse deleting what is in use): in one
     * workspace, or in all of them (null) for agents, which belong to no workspace.
     */
    async referencing(
      workspaceId: string | null,
      column: 'personas' | 'target_agents',
      id: string,
    ): Promise<{ id: string; name: string }[]> {
      const where = [ctx.dialect.jsonArrayHas(`s.${column}`, id)];
      if (workspaceId !== null) where.push(sql<boolean>`s.workspace_id = ${workspaceId}`);
      const { rows } = await sql<{ id: string; name: string }>`SELECT s.id, s.name
        FROM scenarios s WHERE ${sql.join(where, sql` AND `)} ORDER BY s.name`.execute(db);
      return rows;
    },
    async usingScorecard(
      workspaceId: string,
      scorecardId: string,
    ): Promise<{ id: string; name: string }[]> {
      return db
        .selectFrom('scenarios')
        .select(['id', 'name'])
        .where('workspace_id', '=', workspaceId)
        .where('scorecard_id', '=', scorecardId)
        .orderBy('name')
        .execute();
    },
  };
}

/** The workspace's counts and recent average score: one query of subqueries. */
async function workspaceTotals(db: Kysely<Tables>, ws: string, since: string) {
  const { rows } = await sql<
    Omit<WorkspaceScenarioStats, 'most_used_scenario' | 'avg_score_last_30_days'> & {
      avg30: number | null;
    }
  >`SELECT (SELECT COUNT(*) FROM scenarios WHERE workspace_id = ${ws}) AS total_scenarios,
      (SELECT COUNT(*) FROM scenarios s WHERE s.workspace_id = ${ws} AND (
        EXISTS (SELECT 1 FROM schedules h WHERE h.scenario_id = s.id AND h.is_active = 1)
        OR EXISTS (SELECT 1 FROM simulations m WHERE m.scenario_id = s.id AND m.created_at >= ${since})
      )) AS active_scenarios,
      (SELECT COUNT(*) FROM simulations WHERE workspace_id = ${ws} AND ${sql.raw(RAN)}) AS total_simulations,
      (SELECT ${sql.raw(ERRORED)} FROM simulations WHERE workspace_id = ${ws}) AS errored_simulations,
      (SELECT AVG(score) FROM simulations WHERE workspace_id = ${ws} AND ${sql.raw(RAN)}
        AND created_at >= ${since}) AS avg30`.execute(db);
  return rows[0]!;
}

/** Statistics of a scenario, and of a whole workspace. */
function scenarioFigures({ db }: StoreContext) {
  return {
    async stats(id: string): Promise<ScenarioStats> {
      return (await scenarioStats(db, [id])).get(id)!;
    },
    async workspaceStats(workspaceId: string, since30d: string): Promise<WorkspaceScenarioStats> {
      const totals = await workspaceTotals(db, workspaceId, since30d);
      const { rows } = await sql<{ id: string; name: string; simulation_count: number }>`
        SELECT s.id, s.name, COUNT(*) AS simulation_count
        FROM simulations m JOIN scenarios s ON s.id = m.scenario_id
        WHERE m.workspace_id = ${workspaceId} AND ${sql.raw(`m.${RAN}`)}
        GROUP BY s.id, s.name ORDER BY simulation_count DESC, s.name LIMIT 1`.execute(db);
      const top = rows[0];
      return {
        total_scenarios: totals.total_scenarios,
        active_scenarios: totals.active_scenarios,
        total_simulations: totals.total_simulations,
        errored_simulations: totals.errored_simulations,
        avg_score_last_30_days: pct(totals.avg30),
        most_used_scenario: top
          ? { id: top.id, name: top.name, simulation_count: top.simulation_count }
          : null,
      };
    },
  };
}

export function createScenarioStore(ctx: StoreContext) {
  const get = (workspaceId: string, id: string) => readScenario(ctx.db, workspaceId, id);
  const statsOf = (ids: string[]) => scenarioStats(ctx.db, ids);
  return {
    ...scenarioWrites(ctx),
    ...scenarioReads(ctx),
    ...scenarioFigures(ctx),
    get,
    /** The statistics of several scenarios in one query (a page of the list). */
    statsOf,
  };
}

export type ScenarioStore = ReturnType<typeof createScenarioStore>;
