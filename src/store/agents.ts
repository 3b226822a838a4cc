import { sql } from 'kysely';
import type { AgentConfiguration, AgentSnapshot } from '../domain/providers.js';
import { fromJson, toJson, type ColumnMap } from './db.js';
import { patchRow, type StoreContext } from './sql/query.js';
import { agentWorkspaces } from './agent-workspaces.js';

export interface AgentRecord {
  id: string;
  provider: string;
  providerAgentId: string;
  name: string;
  status: string;
  description: string | null;
  snapshot: AgentSnapshot;
  overrides: Record<string, unknown>;
  channel: string | null;
  /** Sealed JSON of {apiKey, baseUrl}. */
  credentials: unknown;
  tags: string[];
  syncStatus: string;
  lastSyncedAt: string | null;
  syncError: string | null;
  callsCursorMs: number | null;
  created_at: string;
  updated_at: string;
}

export interface AgentVersion {
  version: number;
  syncedAt: string;
  changedPaths: string[];
  configuration: AgentConfiguration;
}

interface Row {
  id: string;
  provider: string;
  provider_agent_id: string;
  name: string;
  status: string;
  description: string | null;
  snapshot: string;
  overrides: string;
  channel: string | null;
  credentials: string | null;
  tags: string;
  sync_status: string;
  last_synced_at: string | null;
  sync_error: string | null;
  calls_cursor_ms: number | null;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): AgentRecord => ({
  id: r.id,
  provider: r.provider,
  providerAgentId: r.provider_agent_id,
  name: r.name,
  status: r.status,
  description: r.description,
  snapshot: fromJson(r.snapshot),
  overrides: fromJson(r.overrides),
  channel: r.channel,
  credentials: fromJson(r.credentials),
  tags: fromJson(r.tags),
  syncStatus: r.sync_status,
  lastSyncedAt: r.last_synced_at,
  syncError: r.sync_error,
  callsCursorMs: r.calls_cursor_ms,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** Each field an update may set, its column, and whether it is stored as JSON. */
const PATCH_COLUMNS: ColumnMap = {
  name: { column: 'name' },
  status: { column: 'status' },
  description: { column: 'description' },
  snapshot: { column: 'snapshot', json: true },
  overrides: { column: 'overrides', json: true },
  channel: { column: 'channel' },
  credentials: { column: 'credentials', json: true },
  tags: { column: 'tags', json: true },
  syncStatus: { column: 'sync_status' },
  lastSyncedAt: { column: 'last_synced_at' },
  syncError: { column: 'sync_error' },
  callsCursorMs: { column: 'calls_cursor_ms' },
  updated_at: { column: 'updated_at' },
};

const ROW_COLUMNS = [
  'id',
  'provider',
  'provider_agent_id',
  'name',
  'status',
  'description',
  'snapshot',
  'overrides',
  'channel',
  'credentials',
  'tags',
  'sync_status',
  'last_synced_at',
  'sync_error',
  'calls_cursor_ms',
  'created_at',
  'updated_at',
] as const;

/** One agent by its id. */
async function readAgent(ctx: StoreContext, id: string): Promise<AgentRecord | undefined> {
  const row: Row | undefined = await ctx.db
    .selectFrom('agents')
    .select(ROW_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && fromRow(row);
}

/** Saving agents: connect, update, disconnect. */
function agentWrites(ctx: StoreContext) {
  return {
    async insert(a: AgentRecord): Promise<AgentRecord> {
      await ctx.db
        .insertInto('agents')
        .values({
          id: a.id,
          provider: a.provider,
          provider_agent_id: a.providerAgentId,
          name: a.name,
          status: a.status,
          description: a.description,
          snapshot: toJson(a.snapshot),
          overrides: toJson(a.overrides),
          channel: a.channel,
          credentials: toJson(a.credentials),
          tags: toJson(a.tags),
          sync_status: a.syncStatus,
          last_synced_at: a.lastSyncedAt,
          sync_error: a.syncError,
          calls_cursor_ms: a.callsCursorMs,
          created_at: a.created_at,
          updated_at: a.updated_at,
        })
        .execute();
      return a;
    },
    async update(id: string, patch: Partial<AgentRecord>): Promise<AgentRecord | undefined> {
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
    async findByProvider(
      provider: string,
      providerAgentId: string,
    ): Promise<AgentRecord | undefined> {
      const row: Row | undefined = await ctx.db
        .selectFrom('agents')
        .select(ROW_COLUMNS)
        .where('provider', '=', provider)
        .where('provider_agent_id', '=', providerAgentId)
        .executeTakeFirst();
      return row && fromRow(row);
    },
    async list(): Promise<AgentRecord[]> {
      const rows: Row[] = await ctx.db
        .selectFrom('agents')
        .select(ROW_COLUMNS)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(fromRow);
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
