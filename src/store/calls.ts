import { newId } from '../ids.js';
import type { NormalizedCall } from '../domain/providers.js';
import { fromJson, pageOf, placeholders, prepared, toJson, type Db } from './db.js';

export interface StoredCall extends Omit<NormalizedCall, 'providerError'> {
  id: string;
  agentId: string;
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
}

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
  toolCalls: fromJson(r.tool_calls),
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

/** Imported calls: a page of an agent's, one call, and the figures of a window. */
function callReads(db: Db) {
  return {
    list(agentId: string, limit: number, offset: number): { calls: StoredCall[]; total: number } {
      const { rows, total } = pageOf<Row>(
        db,
        {
          select: '*',
          from: 'calls WHERE agent_id = ?',
          order: 'started_ms DESC, id DESC',
          args: [agentId],
        },
        { limit, offset },
      );
      return { calls: rows.map(fromRow), total };
    },
    get(id: string): StoredCall | undefined {
      const row = prepared(db, 'SELECT * FROM calls WHERE id = ?').get(id) as Row | undefined;
      return row && fromRow(row);
    },
    figures(agentId: string): AgentCallFigures {
      return prepared(
        db,
        `SELECT COUNT(*) AS totalCalls, COUNT(successful) AS knownOutcome, COALESCE(SUM(successful), 0) AS successful,
          COALESCE(SUM(duration_ms), 0) AS totalDurationMs, SUM(cost) AS totalCostUsd FROM calls WHERE agent_id = ?`,
      ).get(agentId) as AgentCallFigures;
    },
  };
}

/** What went wrong for an agent, newest first. */
function agentErrors(db: Db) {
  return {
    addError(agentId: string, e: AgentErrorEntry): void {
      prepared(
        db,
        'INSERT INTO agent_errors (agent_id, at, kind, message, call_id) VALUES (?,?,?,?,?)',
      ).run(agentId, e.at, e.kind, e.message.slice(0, 1000), e.callId ?? null);
    },
    errors(
      agentId: string,
      limit: number,
      offset: number,
    ): { errors: StoredAgentError[]; total: number } {
      const { rows, total } = pageOf<StoredAgentError>(
        db,
        {
          select: 'id, at, kind, message, call_id AS callId',
          from: 'agent_errors WHERE agent_id = ?',
          order: 'at DESC, id DESC',
          args: [agentId],
        },
        { limit, offset },
      );
      return { errors: rows, total };
    },
  };
}

/** Imported call history, keyed by the provider's call id so that a repeated import never duplicates. */
export function createCallStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO calls (id, agent_id, provider_call_id, started_ms, started_at, ended_at, duration_ms, end_reason, cost, cost_original,
       recording_url, summary, successful, transcript, tool_calls) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const update = db.prepare(
    `UPDATE calls SET started_ms = ?, started_at = ?, ended_at = ?, duration_ms = ?, end_reason = ?, cost = ?, cost_original = ?,
       recording_url = ?, summary = ?, successful = ?, transcript = ?, tool_calls = ? WHERE id = ?`,
  );
  return {
    ...callReads(db),
    ...agentErrors(db),
    /** Inserts new calls and refreshes known ones; answers the calls that were new, with their ids. */
    upsert(
      agentId: string,
      calls: NormalizedCall[],
      now: number,
    ): { id: string; call: NormalizedCall }[] {
      if (calls.length === 0) return [];
      const known = new Map(
        (
          prepared(
            db,
            `SELECT provider_call_id, id FROM calls WHERE agent_id = ? AND provider_call_id IN (${placeholders(calls.length)})`,
          ).all(agentId, ...calls.map((c) => c.providerCallId)) as {
            provider_call_id: string;
            id: string;
          }[]
        ).map((r) => [r.provider_call_id, r.id]),
      );
      const fresh: { id: string; call: NormalizedCall }[] = [];
      const seen = new Set<string>();
      for (const c of calls) {
        const values = [
          c.startedAt ? Date.parse(c.startedAt) : null,
          c.startedAt,
          c.endedAt,
          c.durationMs,
          c.endReason,
          c.cost,
          c.costOriginal ? toJson(c.costOriginal) : null,
          c.recordingUrl,
          c.summary,
          c.successful === null ? null : Number(c.successful),
          toJson(c.transcript),
          toJson(c.toolCalls),
        ];
        const id = known.get(c.providerCallId);
        if (id) update.run(...values, id);
        else if (!seen.has(c.providerCallId)) {
          seen.add(c.providerCallId);
          const newCallId = newId('call', now);
          insert.run(newCallId, agentId, c.providerCallId, ...values);
          fresh.push({ id: newCallId, call: c });
        }
      }
      return fresh;
    },
  };
}

export type CallStore = ReturnType<typeof createCallStore>;
