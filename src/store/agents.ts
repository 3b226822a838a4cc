import { sql, type Insertable } from 'kysely';
import type { Agent, AgentPatch, AgentSnapshot, AgentVersion } from '../domain/agents.js';
import { fromJson, toJson } from './db.js';
import { recordColumns } from './record-columns.js';
import { patchRow, type StoreContext } from './sql/query.js';
import type { Agents } from './sql/tables.js';
import { agentWorkspaces } from './agent-workspaces.js';
import { composeVariants } from './agent-variants.js';

export type { Agent, AgentPatch, AgentVersion };
/** The stored agent, under the name its readers know it by. */
export type AgentRecord = Agent;

/** The agent's columns in the `agents` table, in the record's order. */
const COLUMNS = recordColumns<Agent>({
  id: { column: 'id' },
  name: { column: 'name' },
  provider: { column: 'provider' },
  providerAgentId: { column: 'provider_agent_id' },
  status: { column: 'status' },
  description: { column: 'description' },
  snapshot: { column: 'snapshot', json: true },
  channel: { column: 'channel' },
  tags: { column: 'tags', json: true },
  overrides: { column: 'overrides', json: true },
  syncStatus: { column: 'sync_status' },
  lastSyncedAt: { column: 'last_synced_at' },
  syncError: { column: 'sync_error' },
  credentials: { column: 'credentials', json: true },
  callsCursorMs: { column: 'calls_cursor_ms' },
  parentId: { column: 'parent_id' },
  regressionSuite: { column: 'regression_suite', json: true },
  monitoring: { column: 'monitoring', json: true },
  monitoringEnabledAt: { column: 'monitoring_enabled_at' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

/** What an update may set: all but the identity and the creation time (see AgentPatch). */
const PATCH_COLUMNS = COLUMNS.patchColumns([
  'id',
  'provider',
  'providerAgentId',
  'parentId',
  'created_at',
]);

type Row = Record<string, unknown>;

/** One agent by its id, as stored (a variant not yet read through its parent). */
async function readRow(ctx: StoreContext, id: string): Promise<Agent | undefined> {
  const row: Row | undefined = await ctx.db
    .selectFrom('agents')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row && COLUMNS.fromRow(row);
}

/** Agents as they run: a variant read through its parent (agent-variants.ts). */
const composed = (ctx: StoreContext, agents: Agent[]): Promise<Agent[]> =>
  composeVariants(agents, (id) => readRow(ctx, id));

/** One agent by its id. */
async function readAgent(ctx: StoreContext, id: string): Promise<Agent | undefined> {
  const agent = await readRow(ctx, id);
  return agent && (await composed(ctx, [agent]))[0];
}

/** Saving agents: connect, update, disconnect. */
function agentWrites(ctx: StoreContext) {
  return {
    async insert(a: Agent): Promise<Agent> {
      await ctx.db
        .insertInto('agents')
        .values(COLUMNS.toRow(a) as Insertable<Agents>)
        .execute();
      return a;
    },
    async update(id: string, patch: AgentPatch): Promise<Agent | undefined> {
      const fields = Object.entries(patch).some(([k, v]) => PATCH_COLUMNS[k] && v !== undefined);
      if (fields)
        await patchRow(ctx.db, {
          table: 'agents',
          columns: PATCH_COLUMNS,
          patch,
          always: {},
          where: sql`id = ${id}`,
        });
      return readAgent(ctx, id);
    },
    async delete(id: string): Promise<boolean> {
      return ctx.atomic(async (db) => {
        await db
          .deleteFrom('tool_calls')
          .where('agent_id', '=', id)
          .where('source', '=', 'production')
          .execute();
        // A parent's variants go with it (the operation refuses while a scenario targets one).
        await db.deleteFrom('agents').where('parent_id', '=', id).execute();
        const result = await db.deleteFrom('agents').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },
  };
}

/** Finding agents: by ids, by provider, all. */
function agentReads(ctx: StoreContext) {
  return {
    async existing(ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await ctx.db.selectFrom('agents').select('id').where('id', 'in', ids).execute();
      return new Set(rows.map((r) => r.id));
    },
    async findByProvider(provider: string, providerAgentId: string): Promise<Agent | undefined> {
      const row: Row | undefined = await ctx.db
        .selectFrom('agents')
        .selectAll()
        .where('provider', '=', provider)
        .where('provider_agent_id', '=', providerAgentId)
        .executeTakeFirst();
      return row && (await composed(ctx, [COLUMNS.fromRow(row)]))[0];
    },
    async list(): Promise<Agent[]> {
      const rows: Row[] = await ctx.db
        .selectFrom('agents')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return composed(
        ctx,
        rows.map((r) => COLUMNS.fromRow(r)),
      );
    },
    /** A parent's variants, oldest first, as they run. */
    async variantsOf(parentId: string): Promise<Agent[]> {
      const rows: Row[] = await ctx.db
        .selectFrom('agents')
        .selectAll()
        .where('parent_id', '=', parentId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return composed(
        ctx,
        rows.map((r) => COLUMNS.fromRow(r)),
      );
    },
  };
}

/** An agent's synced configurations, each a numbered version. */
function agentVersions(ctx: StoreContext) {
  return {
    /** The newest version's number and the snapshot it recorded. */
    async latestVersion(
      id: string,
    ): Promise<{ version: number; snapshot: AgentSnapshot } | undefined> {
      const row = await ctx.db
        .selectFrom('agent_versions')
        .select(['version', 'configuration'])
        .where('agent_id', '=', id)
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && { version: row.version, snapshot: fromJson<AgentSnapshot>(row.configuration) };
    },
    /** Configuration changes seen on the provider since a time (the first version is no change). */
    async changesSince(id: string, sinceIso: string): Promise<number> {
      const row = await ctx.db
        .selectFrom('agent_versions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('agent_id', '=', id)
        .where('version', '>', 1)
        .where('synced_at', '>=', sinceIso)
        .executeTakeFirstOrThrow();
      return row.n;
    },
    /**
     * Adds the next version; false when that version number is taken already (another server
     * syncing the same agent at the same moment recorded it first), and nothing is written.
     */
    async addVersion(id: string, v: AgentVersion & { snapshot: AgentSnapshot }): Promise<boolean> {
      const added = await ctx.db
        .insertInto('agent_versions')
        .values({
          agent_id: id,
          version: v.version,
          synced_at: v.syncedAt,
          changed_paths: toJson(v.changedPaths),
          configuration: toJson(v.snapshot),
        })
        .onConflict((oc) => oc.columns(['agent_id', 'version']).doNothing())
        .returning('version')
        .executeTakeFirst();
      return added !== undefined;
    },
    /**
     * Gives a version recorded before raw provider records were kept the raw record a later sync
     * read with nothing else changed (providers/raw-record.ts): the record it had, now known.
     * Only a version still without one is written.
     */
    async keepRawRecord(id: string, version: number, snapshot: AgentSnapshot): Promise<void> {
      const row = await ctx.db
        .selectFrom('agent_versions')
        .select('configuration')
        .where('agent_id', '=', id)
        .where('version', '=', version)
        .executeTakeFirst();
      if (!row || fromJson<AgentSnapshot>(row.configuration).raw !== undefined) return;
      await ctx.db
        .updateTable('agent_versions')
        .set({ configuration: toJson(snapshot) })
        .where('agent_id', '=', id)
        .where('version', '=', version)
        .execute();
    },
    async versions(id: string): Promise<(AgentVersion & { snapshot: AgentSnapshot })[]> {
      const rows = await ctx.db
        .selectFrom('agent_versions')
        .select(['version', 'synced_at', 'changed_paths', 'configuration'])
        .where('agent_id', '=', id)
        .orderBy('version', 'desc')
        .execute();
      return rows.map((r) => {
        const snapshot = fromJson<AgentSnapshot>(r.configuration);
        return {
          version: r.version,
          syncedAt: r.synced_at,
          changedPaths: fromJson(r.changed_paths),
          configuration: snapshot.configuration,
          snapshot,
        };
      });
    },
  };
}

/** Connected agents, their synced snapshots, local overrides and configuration versions. */
export function createAgentStore(ctx: StoreContext) {
  const get = (id: string) => readAgent(ctx, id);
  return {
    ...agentWrites(ctx),
    ...agentReads(ctx),
    ...agentVersions(ctx),
    ...agentWorkspaces(ctx),
    get,
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;
