import type { AgentConfiguration, AgentSnapshot } from '../domain/providers.js';
import { fromJson, placeholders, prepared, toJson, type Db } from './db.js';

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

const COLUMNS: Record<string, string> = {
  name: 'name',
  status: 'status',
  description: 'description',
  snapshot: 'snapshot',
  overrides: 'overrides',
  channel: 'channel',
  credentials: 'credentials',
  tags: 'tags',
  syncStatus: 'sync_status',
  lastSyncedAt: 'last_synced_at',
  syncError: 'sync_error',
  callsCursorMs: 'calls_cursor_ms',
  updated_at: 'updated_at',
};
const JSON_FIELDS = new Set(['snapshot', 'overrides', 'credentials', 'tags']);

/** One agent by its id. */
function readAgent(db: Db, id: string): AgentRecord | undefined {
  const row = prepared(db, 'SELECT * FROM agents WHERE id = ?').get(id) as Row | undefined;
  return row && fromRow(row);
}

/** Saving agents: connect, update, disconnect. */
function agentWrites(db: Db) {
  return {
    insert(a: AgentRecord): AgentRecord {
      db.prepare(
        `INSERT INTO agents (id, provider, provider_agent_id, name, status, description, snapshot, overrides, channel, credentials, tags,
           sync_status, last_synced_at, sync_error, calls_cursor_ms, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      ).run(
        a.id,
        a.provider,
        a.providerAgentId,
        a.name,
        a.status,
        a.description,
        toJson(a.snapshot),
        toJson(a.overrides),
        a.channel,
        toJson(a.credentials),
        toJson(a.tags),
        a.syncStatus,
        a.lastSyncedAt,
        a.syncError,
        a.callsCursorMs,
        a.created_at,
        a.updated_at,
      );
      return a;
    },
    update(id: string, patch: Partial<AgentRecord>): AgentRecord | undefined {
      const sets: string[] = [];
      const values: unknown[] = [];
      for (const [key, value] of Object.entries(patch)) {
        const column = COLUMNS[key];
        if (!column || value === undefined) continue;
        sets.push(`${column} = ?`);
        values.push(JSON_FIELDS.has(key) ? toJson(value) : value);
      }
      if (sets.length)
        db.prepare(`UPDATE agents SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
      return readAgent(db, id);
    },
    delete(id: string): boolean {
      return db.transaction(() => {
        db.prepare("DELETE FROM tool_calls WHERE agent_id = ? AND source = 'production'").run(id);
        return db.prepare('DELETE FROM agents WHERE id = ?').run(id).changes > 0;
      })();
    },
  };
}

/** Finding agents: by ids, by provider, all. */
function agentReads(db: Db) {
  return {
    existing(ids: string[]): Set<string> {
      if (ids.length === 0) return new Set();
      const rows = db
        .prepare(`SELECT id FROM agents WHERE id IN (${placeholders(ids.length)})`)
        .all(...ids) as { id: string }[];
      return new Set(rows.map((r) => r.id));
    },
    findByProvider(provider: string, providerAgentId: string): AgentRecord | undefined {
      const row = db
        .prepare('SELECT * FROM agents WHERE provider = ? AND provider_agent_id = ?')
        .get(provider, providerAgentId) as Row | undefined;
      return row && fromRow(row);
    },
    list(): AgentRecord[] {
      return (db.prepare('SELECT * FROM agents ORDER BY created_at, id').all() as Row[]).map(
        fromRow,
      );
    },
  };
}

/** An agent's synced configurations, each a numbered version. */
function agentVersions(db: Db) {
  return {
    /** The newest version's number and the snapshot it recorded. */
    latestVersion(id: string): { version: number; snapshot: AgentSnapshot } | undefined {
      const row = prepared(
        db,
        'SELECT version, configuration FROM agent_versions WHERE agent_id = ? ORDER BY version DESC LIMIT 1',
      ).get(id) as { version: number; configuration: string } | undefined;
      return row && { version: row.version, snapshot: fromJson<AgentSnapshot>(row.configuration) };
    },
    /** Configuration changes seen on the provider since a time (the first version is no change). */
    changesSince(id: string, sinceIso: string): number {
      return prepared(
        db,
        'SELECT COUNT(*) FROM agent_versions WHERE agent_id = ? AND version > 1 AND synced_at >= ?',
      )
        .pluck()
        .get(id, sinceIso) as number;
    },
    addVersion(id: string, v: AgentVersion & { snapshot: AgentSnapshot }): void {
      db.prepare(
        'INSERT INTO agent_versions (agent_id, version, synced_at, changed_paths, configuration) VALUES (?,?,?,?,?)',
      ).run(id, v.version, v.syncedAt, toJson(v.changedPaths), toJson(v.snapshot));
    },
    versions(id: string): (AgentVersion & { snapshot: AgentSnapshot })[] {
      const rows = db
        .prepare('SELECT * FROM agent_versions WHERE agent_id = ? ORDER BY version DESC')
        .all(id) as {
        version: number;
        synced_at: string;
        changed_paths: string;
        configuration: string;
      }[];
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
export function createAgentStore(db: Db) {
  const get = (id: string) => readAgent(db, id);
  return {
    ...agentWrites(db),
    ...agentReads(db),
    ...agentVersions(db),
    get,
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;
