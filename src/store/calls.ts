import { sql, type Insertable, type Kysely } from 'kysely';
import { newId } from '../ids.js';
import type { ImportedToolCall, NormalizedCall } from '../domain/providers.js';
import { fromJson, toJson } from './db.js';
import { insertShaped, runShaped } from './sql/compiled-shapes.js';
import { pageOf, type StoreContext } from './sql/query.js';
import { callFilterSql, type CallFilters } from './call-filters.js';
import type { Calls, Tables } from './sql/tables.js';

export interface StoredCall extends Omit<NormalizedCall, 'providerError'> {
  id: string;
  agentId: string;
  /**
   * The agent's configuration version synced most recently at or before the call started; null
   * for a call older than the first synced version (or imported before versions were recorded).
   */
  agentVersion: number | null;
}

interface Row {
  id: string;
  agent_id: string;
  provider_call_id: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  cost: number | null;
  cost_original: string | null;
  recording_url: string | null;
  summary: string | null;
  successful: number | null;
  transcript: string;
  tool_calls: string;
  agent_version: number | null;
}

/** Tool calls stored before their times were kept read as untimed. */
const toolCallsOf = (text: string): ImportedToolCall[] =>
  fromJson<ImportedToolCall[]>(text).map((tc) => ({ ...tc, atMs: tc.atMs ?? null }));

const fromRow = (r: Row): StoredCall => ({
  id: r.id,
  agentId: r.agent_id,
  providerCallId: r.provider_call_id,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  durationMs: r.duration_ms,
  endReason: r.end_reason,
  cost: r.cost,
  costOriginal: fromJson(r.cost_original),
  recordingUrl: r.recording_url,
  summary: r.summary,
  successful: r.successful === null ? null : r.successful === 1,
  transcript: fromJson(r.transcript),
  toolCalls: toolCallsOf(r.tool_calls),
  agentVersion: r.agent_version,
});

export interface AgentCallFigures {
  totalCalls: number;
  knownOutcome: number;
  successful: number;
  totalDurationMs: number;
  totalCostUsd: number | null;
}

/** An agent error as stored, newest first in lists. */
interface StoredAgentError {
  id: number;
  at: string;
  kind: string;
  message: string;
  callId: string | null;
}

/** Something that went wrong for an agent: a call's provider error, a failed tool, a failed sync. */
export interface AgentErrorEntry {
  at: string;
  kind: 'call_error' | 'tool_error' | 'sync_error';
  /** Kept to its first 1,000 characters. */
  message: string;
  /** The imported call it happened in, if any. */
  callId?: string | null;
}

/** The columns of a stored call, in the order of Row. */
const CALL_COLUMNS = sql.raw(
  'id, agent_id, provider_call_id, started_at, ended_at, duration_ms, end_reason, cost, cost_original, recording_url, summary, successful, transcript, tool_calls, agent_version',
);

/** Imported calls: a page of an agent's, one call, and the figures of a window. */
function callReads(ctx: StoreContext) {
  return {
    async list(
      agentId: string,
      limit: number,
      offset: number,
      filters?: CallFilters,
    ): Promise<{ calls: StoredCall[]; total: number }> {
      // NULLS LAST is SQLite's own order for DESC, spelled out for PostgreSQL (nulls first there).
      const { rows, total } = await pageOf<Row>(
        ctx.db,
        {
          select: CALL_COLUMNS,
          from: sql`calls WHERE agent_id = ${agentId}${callFilterSql(ctx.dialect, filters)}`,
          order: sql`started_ms DESC NULLS LAST, id DESC`,
        },
        { limit, offset },
      );
      return { calls: rows.map(fromRow), total };
    },
    async get(id: string): Promise<StoredCall | undefined> {
      const { rows } = await sql<Row>`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ${id}`.execute(
        ctx.db,
      );
      return rows[0] && fromRow(rows[0]);
    },
    async figures(agentId: string): Promise<AgentCallFigures> {
      const { rows } = await sql<{
        total_calls: number;
        known_outcome: number;
        successful: number;
        total_duration_ms: number;
        total_cost_usd: number | null;
      }>`SELECT COUNT(*) AS total_calls, COUNT(successful) AS known_outcome,
          COALESCE(SUM(successful), 0) AS successful, COALESCE(SUM(duration_ms), 0) AS total_duration_ms,
          SUM(cost) AS total_cost_usd
        FROM calls WHERE agent_id = ${agentId}`.execute(ctx.db);
      const r = rows[0]!;
      return {
        totalCalls: r.total_calls,
        knownOutcome: r.known_outcome,
        successful: r.successful,
        totalDurationMs: r.total_duration_ms,
        totalCostUsd: r.total_cost_usd,
      };
    },
  };
}

/** What went wrong for an agent, newest first. */
function agentErrors(ctx: StoreContext) {
  return {
    async addError(agentId: string, e: AgentErrorEntry): Promise<void> {
      await ctx.db
        .insertInto('agent_errors')
        .values({
          agent_id: agentId,
          at: e.at,
          kind: e.kind,
          message: e.message.slice(0, 1000),
          call_id: e.callId ?? null,
        })
        .execute();
    },
    async errors(
      agentId: string,
      limit: number,
      offset: number,
    ): Promise<{ errors: StoredAgentError[]; total: number }> {
      const { rows, total } = await pageOf<{
        id: number;
        at: string;
        kind: string;
        message: string;
        call_id: string | null;
      }>(
        ctx.db,
        {
          select: sql`id, at, kind, message, call_id`,
          from: sql`agent_errors WHERE agent_id = ${agentId}`,
          order: sql`at DESC, id DESC`,
        },
        { limit, offset },
      );
      return {
        errors: rows.map((r) => ({
          id: r.id,
          at: r.at,
          kind: r.kind,
          message: r.message,
          callId: r.call_id,
        })),
        total,
      };
    },
  };
}

/**
 * Rows a statement handles at once: the ids looked up in one `IN` list, the calls inserted by one
 * multi-row INSERT (15 values each, well inside both databases' bound-parameter limits).
 */
const CHUNK = 500;

/** The columns of a call that an import writes, and rewrites when the call is seen again. */
const callValues = (c: NormalizedCall) => ({
  started_ms: c.startedAt ? Date.parse(c.startedAt) : null,
  started_at: c.startedAt,
  ended_at: c.endedAt,
  duration_ms: c.durationMs,
  end_reason: c.endReason,
  cost: c.cost,
  cost_original: c.costOriginal ? toJson(c.costOriginal) : null,
  recording_url: c.recordingUrl,
  summary: c.summary,
  successful: c.successful === null ? null : Number(c.successful),
  transcript: toJson(c.transcript),
  tool_calls: toJson(c.toolCalls),
});

/**
 * The agent's version in force at a call's start: the highest version synced at or before it;
 * null for a call without a start or older than the first version. Read once per batch (an
 * agent has few versions), so that which sync imports a call never changes its version.
 */
async function versionAtStart(
  db: Kysely<Tables>,
  agentId: string,
): Promise<(startedAt: string | null) => number | null> {
  const versions = (
    await db
      .selectFrom('agent_versions')
      .select(['version', 'synced_at'])
      .where('agent_id', '=', agentId)
      .execute()
  ).map((v) => ({ version: v.version, syncedMs: Date.parse(v.synced_at) }));
  return (startedAt) => {
    const started = startedAt ? Date.parse(startedAt) : NaN;
    if (Number.isNaN(started)) return null;
    let found: number | null = null;
    for (const v of versions)
      if (v.syncedMs <= started && (found === null || v.version > found)) found = v.version;
    return found;
  };
}

/** Of these provider call ids, the ones the agent already has, with their ids. */
async function knownCalls(
  db: Kysely<Tables>,
  agentId: string,
  providerCallIds: string[],
): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  for (let i = 0; i < providerCallIds.length; i += CHUNK) {
    const ids = providerCallIds.slice(i, i + CHUNK);
    const { rows } = await runShaped(
      db,
      `calls.known:${ids.length}`,
      () =>
        db
          .selectFrom('calls')
          .select(['provider_call_id', 'id'])
          .where('agent_id', '=', agentId)
          .where('provider_call_id', 'in', ids)
          .compile(),
      [agentId, ...ids],
    );
    for (const r of rows) known.set(r.provider_call_id, r.id);
  }
  return known;
}

/** Inserts the rows, skipping calls already there; answers the ids of those it inserted. */
async function insertNew(db: Kysely<Tables>, rows: Insertable<Calls>[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += CHUNK) {
    const { rows: added } = await insertShaped(db, 'calls.insert', rows.slice(i, i + CHUNK), (r) =>
      db
        .insertInto('calls')
        .values(r)
        .onConflict((oc) => oc.columns(['agent_id', 'provider_call_id']).doNothing())
        .returning('id'),
    );
    for (const row of added) inserted.add(row.id);
  }
  return inserted;
}

/** Imported call history, keyed by the provider's call id so that a repeated import never duplicates. */
export function createCallStore(ctx: StoreContext) {
  return {
    ...callReads(ctx),
    ...agentErrors(ctx),
    /**
     * Inserts new calls and refreshes known ones; answers the calls that were new, with their ids,
     * in the order given. A provider id repeated in one batch is inserted once, from its first
     * occurrence; a known call seen twice ends with its last occurrence's values.
     */
    async upsert(
      agentId: string,
      calls: NormalizedCall[],
      now: number,
    ): Promise<{ id: string; call: NormalizedCall }[]> {
      if (calls.length === 0) return [];
      return ctx.atomic(async (db) => {
        const known = await knownCalls(db, agentId, [
          ...new Set(calls.map((c) => c.providerCallId)),
        ]);
        const versionOf = await versionAtStart(db, agentId);
        const valuesOf = (c: NormalizedCall) => ({
          ...callValues(c),
          agent_version: versionOf(c.startedAt),
        });
        const fresh: { id: string; call: NormalizedCall }[] = [];
        const rows: Insertable<Calls>[] = [];
        const refreshed = new Map<string, ReturnType<typeof valuesOf>>();
        const seen = new Set<string>();
        for (const c of calls) {
          const id = known.get(c.providerCallId);
          if (id) refreshed.set(id, valuesOf(c));
          else if (!seen.has(c.providerCallId)) {
            seen.add(c.providerCallId);
            const newCallId = newId('call', now);
            rows.push({
              id: newCallId,
              agent_id: agentId,
              provider_call_id: c.providerCallId,
              ...valuesOf(c),
            });
            fresh.push({ id: newCallId, call: c });
          }
        }
        // A call another server imported since `knownCalls` looked (two syncs of one agent at
        // once) is skipped, not an error: it is stored once, and is fresh only to that server.
        const inserted = await insertNew(db, rows);
        for (const [id, values] of refreshed)
          await db.updateTable('calls').set(values).where('id', '=', id).execute();
        return fresh.filter((f) => inserted.has(f.id));
      });
    },
  };
}

export type CallStore = ReturnType<typeof createCallStore>;
