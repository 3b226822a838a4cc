import type { ToolCallRecord } from '../domain/tools.js';
import { placeholders, prepared, toJson, type Db } from './db.js';

export interface WindowFigures {
  total: number;
  agents: number;
  avgMs: number | null;
  successes: number;
  timeouts: number;
  retried: number;
  retriedOk: number;
}

export interface ErrorFigure {
  type: string;
  count: number;
  message: string;
}

/** One tool's calls in a window of time. */
const WINDOW = 'tool_id = ? AND started_ms >= ? AND started_ms <= ?';

/** Figures of the call log; each read first writes what is buffered. */
function toolCallFigures(db: Db, flush: () => void) {
  return {
    figures(toolId: string, from: number, to: number): WindowFigures {
      flush();
      return prepared(
        db,
        `SELECT COUNT(*) AS total, COUNT(DISTINCT agent_id) AS agents, AVG(duration_ms) AS avgMs,
          COALESCE(SUM(outcome = 'success'), 0) AS successes, COALESCE(SUM(outcome = 'timeout'), 0) AS timeouts,
          COALESCE(SUM(attempts > 1), 0) AS retried, COALESCE(SUM(attempts > 1 AND outcome = 'success'), 0) AS retriedOk
        FROM tool_calls WHERE ${WINDOW}`,
      ).get(toolId, from, to) as WindowFigures;
    },
    /** The real 95th percentile (nearest rank) of the window's durations. */
    p95(toolId: string, from: number, to: number, total: number): number | null {
      flush();
      if (total === 0) return null;
      const rank = Math.ceil(0.95 * total) - 1;
      return prepared(
        db,
        `SELECT duration_ms FROM tool_calls WHERE ${WINDOW} ORDER BY duration_ms LIMIT 1 OFFSET ?`,
      )
        .pluck()
        .get(toolId, from, to, rank) as number;
    },
    /** Window figures of many tools at once (one query however many tools). */
    figuresOfTools(
      toolIds: string[],
      from: number,
      to: number,
    ): Map<string, { total: number; avgMs: number; successes: number; timeouts: number }> {
      flush();
      const rows = prepared(
        db,
        `SELECT tool_id AS id, COUNT(*) AS total, AVG(duration_ms) AS avgMs, SUM(outcome = 'success') AS successes, SUM(outcome = 'timeout') AS timeouts
        FROM tool_calls WHERE tool_id IN (${placeholders(toolIds.length)}) AND started_ms >= ? AND started_ms <= ? GROUP BY tool_id`,
      ).all(...toolIds, from, to) as {
        id: string;
        total: number;
        avgMs: number;
        successes: number;
        timeouts: number;
      }[];
      return new Map(rows.map((r) => [r.id, r]));
    },
    /** The nearest-rank p95 of many tools at once, as p95() computes it for one: rank ceil(0.95 n). */
    p95OfTools(toolIds: string[], from: number, to: number): Map<string, number> {
      flush();
      const rows = prepared(
        db,
        `SELECT id, duration_ms AS ms FROM (
          SELECT tool_id AS id, duration_ms, ROW_NUMBER() OVER (PARTITION BY tool_id ORDER BY duration_ms) AS rn, COUNT(*) OVER (PARTITION BY tool_id) AS n
          FROM tool_calls WHERE tool_id IN (${placeholders(toolIds.length)}) AND started_ms >= ? AND started_ms <= ?)
        WHERE rn = (n * 95 + 99) / 100`,
      ).all(...toolIds, from, to) as { id: string; ms: number }[];
      return new Map(rows.map((r) => [r.id, r.ms]));
    },
    /** Calls of a tool name made for an agent, or through our tool of that name. */
    figuresOfName(
      name: string,
      agentId: string,
      toolId: string | null,
    ): { n: number; ok: number; avg: number | null } {
      flush();
      return prepared(
        db,
        `SELECT COUNT(*) AS n, COALESCE(SUM(outcome = 'success'), 0) AS ok, AVG(duration_ms) AS avg FROM tool_calls
        WHERE tool_name = ? AND (agent_id = ? OR tool_id = ?)`,
      ).get(name, agentId, toolId ?? '') as { n: number; ok: number; avg: number | null };
    },
    /** Failures by type, each with its most recent message. */
    errors(toolId: string, from: number, to: number): ErrorFigure[] {
      flush();
      return prepared(
        db,
        `SELECT outcome AS type, COUNT(*) AS count,
          (SELECT e.error_message FROM tool_calls e WHERE e.tool_id = t.tool_id AND e.outcome = t.outcome
             AND e.started_ms >= ? AND e.started_ms <= ? ORDER BY e.started_ms DESC, e.id DESC LIMIT 1) AS message
        FROM tool_calls t WHERE ${WINDOW} AND outcome != 'success' GROUP BY outcome ORDER BY count DESC, type`,
      ).all(from, to, toolId, from, to) as ErrorFigure[];
    },
  };
}

/**
 * The call log: one row per tool call, from tests, simulations and production call history.
 * Writes are buffered and land together in one transaction within 50 ms (a call should not wait
 * for its own log line, and one transaction per call would cost more than the call's own work);
 * every read, and the engine's stop, flushes first.
 */
export function createToolCallStore(db: Db) {
  let buffer: ToolCallRecord[] = [];
  let scheduled = false;
  const insert = db.prepare(
    `INSERT INTO tool_calls (tool_id, tool_name, agent_id, source, started_ms, duration_ms, outcome, status_code, attempts, error_message, parameters, result)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const writeAll = db.transaction((calls: ToolCallRecord[]) => {
    for (const c of calls) {
      insert.run(
        c.toolId,
        c.toolName,
        c.agentId,
        c.source,
        c.startedMs,
        c.durationMs,
        c.outcome,
        c.statusCode,
        c.attempts,
        c.errorMessage,
        c.parameters === null ? null : toJson(c.parameters),
        c.result === null ? null : toJson(c.result),
      );
    }
  });
  function flush(): void {
    scheduled = false;
    if (buffer.length === 0 || !db.open) return;
    const calls = buffer;
    buffer = [];
    writeAll(calls);
  }
  return {
    ...toolCallFigures(db, flush),
    insert(c: ToolCallRecord): void {
      buffer.push(c);
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 50).unref();
      }
    },
    flush,
  };
}

export type ToolCallStore = ReturnType<typeof createToolCallStore>;
