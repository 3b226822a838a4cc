import { sql, type Kysely } from 'kysely';
import type { ToolCallRecord } from '../domain/tools.js';
import { toJson, type Db } from './db.js';
import { noReadCache, type ReadCache } from './read-cache.js';
import { insertShaped } from './sql/compiled-shapes.js';
import type { StoreDatabase } from './sql/connect.js';
import { boundCount, valueList, type StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';
import { countWhere } from './usage.js';

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
const window = (toolId: string, from: number, to: number) =>
  sql`tool_id = ${toolId} AND started_ms >= ${from} AND started_ms <= ${to}`;

/** Figures of one tool's window; each read first writes what is buffered. */
function windowFigures({ db }: StoreContext, flush: () => Promise<void>) {
  return {
    async figures(toolId: string, from: number, to: number): Promise<WindowFigures> {
      await flush();
      const { rows } = await sql<WindowFigures>`SELECT COUNT(*) AS total,
          COUNT(DISTINCT agent_id) AS agents, AVG(duration_ms) AS "avgMs",
          ${sql.raw(countWhere("outcome = 'success'"))} AS successes,
          ${sql.raw(countWhere("outcome = 'timeout'"))} AS timeouts,
          ${sql.raw(countWhere('attempts > 1'))} AS retried,
          ${sql.raw(countWhere("attempts > 1 AND outcome = 'success'"))} AS "retriedOk"
        FROM tool_calls WHERE ${window(toolId, from, to)}`.execute(db);
      const r = rows[0]!;
      return {
        total: r.total,
        agents: r.agents,
        avgMs: r.avgMs,
        successes: r.successes,
        timeouts: r.timeouts,
        retried: r.retried,
        retriedOk: r.retriedOk,
      };
    },
    /** The real 95th percentile (nearest rank) of the window's durations. */
    async p95(toolId: string, from: number, to: number, total: number): Promise<number | null> {
      await flush();
      if (total === 0) return null;
      const rank = Math.ceil(0.95 * total) - 1;
      const { rows } = await sql<{ duration_ms: number }>`SELECT duration_ms FROM tool_calls
        WHERE ${window(toolId, from, to)} ORDER BY duration_ms
        LIMIT 1 OFFSET ${boundCount(rank)}`.execute(db);
      return rows[0]?.duration_ms ?? null;
    },
  };
}

/** One bucket of a window, as the trend query answers it (empty buckets are absent). */
export interface BucketFigures {
  bucket: number;
  total: number;
  successes: number;
  p50: number | null;
  p95: number | null;
}

/**
 * A tool's window cut into buckets of `size` ms from `from`: per bucket its calls, successes and
 * nearest-rank p50 and p95 of durations, in one query however many calls (ranked by window
 * functions, as p95OfTools does). A bucket holds its end and not its start (the first also holds
 * `from`): the window's last instant, now, is in the last bucket. `from` and `size` are whole
 * numbers the engine computed, written as literals so that both databases divide integers (and
 * truncate toward zero alike).
 */
function trendFigures({ db }: StoreContext, flush: () => Promise<void>) {
  return {
    async trend(toolId: string, from: number, to: number, size: number): Promise<BucketFigures[]> {
      await flush();
      const start = sql.lit(Math.floor(from) + 1);
      const step = sql.lit(Math.max(1, Math.floor(size)));
      const { rows } = await sql<BucketFigures>`SELECT bucket, MAX(n) AS total,
          ${sql.raw(countWhere("outcome = 'success'"))} AS successes,
          MIN(CASE WHEN rn = (n * 50 + 99) / 100 THEN duration_ms END) AS p50,
          MIN(CASE WHEN rn = (n * 95 + 99) / 100 THEN duration_ms END) AS p95
        FROM (SELECT bucket, outcome, duration_ms,
            ROW_NUMBER() OVER (PARTITION BY bucket ORDER BY duration_ms) AS rn,
            COUNT(*) OVER (PARTITION BY bucket) AS n
          FROM (SELECT (started_ms - ${start}) / ${step} AS bucket, outcome, duration_ms
            FROM tool_calls WHERE ${window(toolId, from, to)}) bucketed) ranked
        GROUP BY bucket ORDER BY bucket`.execute(db);
      return rows.map((r) => ({
        bucket: Number(r.bucket),
        total: Number(r.total),
        successes: Number(r.successes),
        p50: r.p50 === null ? null : Number(r.p50),
        p95: r.p95 === null ? null : Number(r.p95),
      }));
    },
    /** When the tool was first called (an analytics window of all time starts there). */
    async firstCall(toolId: string): Promise<number | null> {
      await flush();
      const { rows } = await sql<{ first: number | null }>`SELECT MIN(started_ms) AS first
        FROM tool_calls WHERE tool_id = ${toolId}`.execute(db);
      const first = rows[0]?.first;
      return first === null || first === undefined ? null : Number(first);
    },
  };
}

/** Figures of many tools, of a tool name, and of failures; each read first writes what is buffered. */
function toolFigures({ db }: StoreContext, flush: () => Promise<void>) {
  return {
    /** Window figures of many tools at once (one query however many tools). */
    async figuresOfTools(
      toolIds: string[],
      from: number,
      to: number,
    ): Promise<Map<string, { total: number; avgMs: number; successes: number; timeouts: number }>> {
      await flush();
      if (toolIds.length === 0) return new Map();
      const { rows } = await sql<{
        id: string;
        total: number;
        avgMs: number;
        successes: number;
        timeouts: number;
      }>`SELECT tool_id AS id, COUNT(*) AS total, AVG(duration_ms) AS "avgMs",
          ${sql.raw(countWhere("outcome = 'success'"))} AS successes,
          ${sql.raw(countWhere("outcome = 'timeout'"))} AS timeouts
        FROM tool_calls WHERE tool_id IN (${valueList(toolIds)})
          AND started_ms >= ${from} AND started_ms <= ${to}
        GROUP BY tool_id`.execute(db);
      return new Map(
        rows.map((r) => [
          r.id,
          {
            id: r.id,
            total: r.total,
            avgMs: r.avgMs,
            successes: r.successes,
            timeouts: r.timeouts,
          },
        ]),
      );
    },
    /** The nearest-rank p95 of many tools at once, as p95() computes it for one: rank ceil(0.95 n). */
    async p95OfTools(toolIds: string[], from: number, to: number): Promise<Map<string, number>> {
      await flush();
      if (toolIds.length === 0) return new Map();
      const { rows } = await sql<{ id: string; ms: number }>`SELECT id, duration_ms AS ms FROM (
          SELECT tool_id AS id, duration_ms,
            ROW_NUMBER() OVER (PARTITION BY tool_id ORDER BY duration_ms) AS rn,
            COUNT(*) OVER (PARTITION BY tool_id) AS n
          FROM tool_calls WHERE tool_id IN (${valueList(toolIds)})
            AND started_ms >= ${from} AND started_ms <= ${to}) ranked
        WHERE rn = (n * 95 + 99) / 100`.execute(db);
      return new Map(rows.map((r) => [r.id, r.ms]));
    },
    /** Calls of a tool name made for an agent, or through our tool of that name. */
    async figuresOfName(
      name: string,
      agentId: string,
      toolId: string | null,
    ): Promise<{ n: number; ok: number; avg: number | null }> {
      await flush();
      const { rows } = await sql<{ n: number; ok: number; avg: number | null }>`SELECT
          COUNT(*) AS n, ${sql.raw(countWhere("outcome = 'success'"))} AS ok,
          AVG(duration_ms) AS avg
        FROM tool_calls
        WHERE tool_name = ${name} AND (agent_id = ${agentId} OR tool_id = ${toolId ?? ''})`.execute(
        db,
      );
      const r = rows[0]!;
      return { n: r.n, ok: r.ok, avg: r.avg };
    },
    /** Failures by type, each with its most recent message. */
    async errors(toolId: string, from: number, to: number): Promise<ErrorFigure[]> {
      await flush();
      // The message's subquery names the tool by value: PostgreSQL refuses an ungrouped outer column.
      const { rows } = await sql<ErrorFigure>`SELECT outcome AS type, COUNT(*) AS count,
          (SELECT e.error_message FROM tool_calls e
            WHERE e.tool_id = ${toolId} AND e.outcome = t.outcome
              AND e.started_ms >= ${from} AND e.started_ms <= ${to}
            ORDER BY e.started_ms DESC, e.id DESC LIMIT 1) AS message
        FROM tool_calls t WHERE ${window(toolId, from, to)} AND outcome != 'success'
        GROUP BY outcome ORDER BY count DESC, type`.execute(db);
      return rows.map((r) => ({ type: r.type, count: r.count, message: r.message }));
    },
  };
}

/** Rows a multi-row insert carries at most (13 values each, well under both databases' limits). */
const CHUNK = 500;

/** A failed write is tried once more after this long; rows that fail twice are given up. */
const RETRY_MS = 1000;

const toRow = (c: ToolCallRecord) => ({
  tool_id: c.toolId,
  tool_name: c.toolName,
  agent_id: c.agentId,
  source: c.source,
  started_ms: c.startedMs,
  duration_ms: c.durationMs,
  outcome: c.outcome,
  status_code: c.statusCode,
  attempts: c.attempts,
  error_message: c.errorMessage,
  parameters: c.parameters === null ? null : toJson(c.parameters),
  result: c.result === null ? null : toJson(c.result),
});

async function insertAll(db: Kysely<Tables>, calls: ToolCallRecord[]): Promise<void> {
  for (let i = 0; i < calls.length; i += CHUNK)
    await insertShaped(db, 'tool_calls.insert', calls.slice(i, i + CHUNK).map(toRow), (rows) =>
      db.insertInto('tool_calls').values(rows),
    );
}

/** The columns toRow fills, in its order. */
const ROW_COLUMNS = Object.keys(toRow({ parameters: null, result: null } as ToolCallRecord));
const ROW_INSERT = `INSERT INTO tool_calls (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`;

/**
 * SQLite: the rows through one INSERT prepared once per connection, run row by row in a savepoint
 * of the transaction the flush holds (all the rows or none, as one multi-row INSERT was). Each
 * flush carries a different number of rows: the multi-row INSERT compiled and prepared a new
 * text for nearly every flush, which cost more than writing the rows. The read cache is told the
 * rows went to tool_calls alone, so it keeps what was read from other tables (the API keys and
 * tools every call looks up).
 */
const rowInserts = new WeakMap<Db, (calls: ToolCallRecord[]) => void>();
function insertRows(sqlite: Db, calls: ToolCallRecord[]): void {
  let insert = rowInserts.get(sqlite);
  if (!insert) {
    const statement = sqlite.prepare(ROW_INSERT);
    insert = sqlite.transaction((rows: ToolCallRecord[]) => {
      for (const c of rows) statement.run(Object.values(toRow(c)));
    });
    rowInserts.set(sqlite, insert);
  }
  insert(calls);
}

/**
 * The call log's write buffer, one for the store and every transaction's store: one row per tool
 * call, from tests, simulations and production call history. Writes are buffered and land together
 * in one transaction within 50 ms (a call should not wait for its own log line, and one
 * transaction per call would cost more than the call's own work).
 *
 * A write that fails puts its rows back to be tried once more (a moment later, or by the next
 * flush); rows that fail again are given up, and their error reaches whoever awaits the flush, or
 * else the next flush. Rows logged after the database is closed are dropped. `cache` is the store's
 * read cache on the same SQLite connection.
 */
export function createToolCallLog(database: StoreDatabase, cache: ReadCache = noReadCache) {
  let buffer: ToolCallRecord[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The write under way, settled either way: each write starts after the one before. */
  let writing: Promise<void> = Promise.resolve();
  /** Rows that failed once: a second failure gives them up. */
  const failedOnce = new WeakSet<ToolCallRecord>();
  /** The error of rows a write nobody awaited gave up, for the next flush to report. */
  let lost: Error | undefined;
  /** On SQLite, `db` is the one connection the flush holds (its own transaction or a store's). */
  const write = async (db: Kysely<Tables>, calls: ToolCallRecord[]): Promise<void> => {
    const sqlite = database.sqlite;
    if (sqlite) cache.writing('tool_calls', () => insertRows(sqlite, calls));
    else await insertAll(db, calls);
  };

  const closed = (err?: unknown): boolean =>
    (database.sqlite !== null && !database.sqlite.open) ||
    (err instanceof Error && err.message === 'driver has already been destroyed');

  /**
   * Rows of a failed write go back to the front of the buffer, to be tried again shortly, unless
   * they failed before: those are given up. Answers whether any were.
   */
  function failed(calls: ToolCallRecord[]): boolean {
    const again = calls.filter((c) => !failedOnce.has(c));
    for (const c of again) failedOnce.add(c);
    buffer = again.concat(buffer);
    if (buffer.length > 0) schedule(RETRY_MS);
    return again.length < calls.length;
  }

  /**
   * Writes what is buffered when the write's turn comes, on `db` or in a transaction of its own.
   * A write nobody awaits keeps the error of rows it gave up for the next flush to report.
   */
  async function drain(db: Kysely<Tables> | null, awaited: boolean): Promise<void> {
    if (buffer.length === 0 || closed()) return;
    let calls: ToolCallRecord[] = [];
    const take = () => {
      calls = buffer;
      buffer = [];
      return calls;
    };
    try {
      // On SQLite the transaction may wait for the connection: the buffer is taken once it has it.
      if (db) await write(db, take());
      else await database.transaction((tx) => write(tx, take()));
    } catch (err) {
      if (closed(err)) return; // logged after the store closed: dropped, as nothing could write it
      if (failed(calls) && !awaited) lost ??= err instanceof Error ? err : new Error(String(err));
      if (awaited) throw err;
    }
  }

  function schedule(ms: number): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      writing = writing.then(() => drain(null, false));
    }, ms);
    timer.unref();
  }

  return {
    insert(c: ToolCallRecord): void {
      buffer.push(c);
      schedule(50);
    },
    /**
     * Writes what is buffered now and waits for any write under way. Given the transaction a store
     * runs inside, the rows are written in it instead, at once: on SQLite a write of its own would
     * wait for that very transaction to end.
     */
    async flush(db?: Kysely<Tables>): Promise<void> {
      const inside = db !== undefined && db !== database.kysely;
      const next = inside ? drain(db, true) : writing.then(() => drain(null, true));
      if (!inside) writing = next.catch(() => undefined);
      await next;
      if (lost !== undefined) {
        const err = lost;
        lost = undefined;
        throw err;
      }
    },
  };
}

export type ToolCallLog = ReturnType<typeof createToolCallLog>;

/**
 * The call log's reads and writes on one context: inserts go to the shared buffer; every read, and
 * the engine's stop, flushes first.
 */
export function createToolCallStore(ctx: StoreContext, log: ToolCallLog) {
  const flush = () => log.flush(ctx.db);
  return {
    ...windowFigures(ctx, flush),
    ...toolFigures(ctx, flush),
    ...trendFigures(ctx, flush),
    /** Answers once the call is buffered; it is written within 50 ms. */
    insert(c: ToolCallRecord): Promise<void> {
      log.insert(c);
      return Promise.resolve();
    },
    flush,
  };
}

export type ToolCallStore = ReturnType<typeof createToolCallStore>;
