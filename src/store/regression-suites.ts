import { sql } from 'kysely';
import type { SuiteRun, SuiteRunStatus } from '../domain/regression.js';
import { recordColumns } from './record-columns.js';
import { affected, type StoreContext } from './sql/query.js';

export type { SuiteRun };

/** A suite run's columns in `regression_suite_runs`, in the record's order. */
const COLUMNS = recordColumns<SuiteRun>({
  id: { column: 'id' },
  agent_id: { column: 'agent_id' },
  version: { column: 'version' },
  workspace_id: { column: 'workspace_id' },
  execution_ids: { column: 'execution_ids', json: true },
  status: { column: 'status' },
  baseline_run_id: { column: 'baseline_run_id' },
  comparison_id: { column: 'comparison_id' },
  verdict: { column: 'verdict' },
  error: { column: 'error' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

type Row = Record<string, unknown>;

/** How a run ends: completed (compared, or the first with nothing to compare), or failed. */
export type SuiteRunEnd = Pick<
  SuiteRun,
  'baseline_run_id' | 'comparison_id' | 'verdict' | 'error'
> & {
  status: Exclude<SuiteRunStatus, 'running'>;
};

/** Starting and ending runs: each transition is conditional, so two instances never both make it. */
function suiteRunWrites(ctx: StoreContext) {
  return {
    /**
     * Records that the agent's suite runs for this version; false when a run of that version is
     * recorded already (another instance claimed it first), and nothing is written.
     */
    async claim(
      run: Pick<SuiteRun, 'id' | 'agent_id' | 'version' | 'workspace_id' | 'created_at'>,
    ) {
      const added = await ctx.db
        .insertInto('regression_suite_runs')
        .values({
          ...run,
          execution_ids: '[]',
          status: 'running',
          updated_at: run.created_at,
        })
        .onConflict((oc) => oc.columns(['agent_id', 'version']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return added !== undefined;
    },
    async setExecutions(id: string, executionIds: string[], at: string): Promise<void> {
      await ctx.db
        .updateTable('regression_suite_runs')
        .set({ execution_ids: JSON.stringify(executionIds), updated_at: at })
        .where('id', '=', id)
        .execute();
    },
    /** Ends a running run; false when it was not running any more (someone else ended it). */
    async end(id: string, end: SuiteRunEnd, at: string): Promise<boolean> {
      const result = await ctx.db
        .updateTable('regression_suite_runs')
        .set({ ...end, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return affected({ numAffectedRows: result.numUpdatedRows }) > 0;
    },
  };
}

/** Reading runs: by id, the running ones, an agent's newest first, the one to compare with. */
function suiteRunReads(ctx: StoreContext) {
  const select = () => ctx.db.selectFrom('regression_suite_runs').selectAll();
  const one = (row: Row | undefined) => (row ? COLUMNS.fromRow(row) : undefined);
  return {
    async getRun(id: string): Promise<SuiteRun | undefined> {
      return one(await select().where('id', '=', id).executeTakeFirst());
    },
    async running(): Promise<SuiteRun[]> {
      const rows: Row[] = await select().where('status', '=', 'running').execute();
      return rows.map((r) => COLUMNS.fromRow(r));
    },
    /** An agent's runs, newest version first. */
    async runsOf(agentId: string, limit: number): Promise<SuiteRun[]> {
      const rows: Row[] = await select()
        .where('agent_id', '=', agentId)
        .orderBy('version', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => COLUMNS.fromRow(r));
    },
    /** The newest completed run of an earlier version: what a new version is compared with. */
    async previousCompleted(agentId: string, version: number): Promise<SuiteRun | undefined> {
      return one(
        await select()
          .where('agent_id', '=', agentId)
          .where('version', '<', version)
          .where('status', '=', 'completed')
          .orderBy('version', 'desc')
          .limit(1)
          .executeTakeFirst(),
      );
    },
    /** The newest run of each of these agents that has a verdict (the alert's measurement). */
    async latestCompared(agentIds: string[]): Promise<Map<string, SuiteRun>> {
      if (agentIds.length === 0) return new Map();
      const rows: Row[] = await select()
        .where('agent_id', 'in', agentIds)
        .where('verdict', 'is not', null)
        .orderBy('version', 'desc')
        .execute();
      const out = new Map<string, SuiteRun>();
      for (const r of rows.map((x) => COLUMNS.fromRow(x)))
        if (!out.has(r.agent_id)) out.set(r.agent_id, r);
      return out;
    },
  };
}

/** The drift suite's runs, and what its validation reads of scenarios. */
export function createRegressionSuiteStore(ctx: StoreContext) {
  return {
    ...suiteRunWrites(ctx),
    ...suiteRunReads(ctx),
    /** The workspace of each of these scenarios that exists (scenarios belong to one each). */
    async scenarioWorkspaces(ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const { rows } = await sql<{ id: string; workspace_id: string }>`SELECT id, workspace_id
        FROM scenarios WHERE id IN (${sql.join(ids)})`.execute(ctx.db);
      return new Map(rows.map((r) => [r.id, r.workspace_id]));
    },
  };
}

export type RegressionSuiteStore = ReturnType<typeof createRegressionSuiteStore>;
