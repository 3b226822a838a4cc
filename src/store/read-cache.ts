import type { Db } from './db.js';

/** Answers of read queries kept while the data they were read from has not changed. */
export interface ReadCache {
  /**
   * The answer kept under `key`, or `compute`'s, read afresh. `reads` names the tables the answer
   * is read from: a write known to touch only other tables keeps it. Without `reads`, any write
   * drops it.
   */
  get<T>(key: string, compute: () => Promise<T>, reads?: readonly string[]): Promise<T>;
  /**
   * Runs a synchronous write that changes rows of `table` and nothing else (no trigger, no
   * cascade), on the cache's own connection: only answers read from that table are dropped.
   */
  writing<T>(table: string, write: () => T): T;
}

/** No cache: every read computes (PostgreSQL, where other servers write unseen, and transactions). */
export const noReadCache: ReadCache = {
  get: (_key, compute) => compute(),
  writing: (_table, write) => write(),
};

interface Entry {
  value: unknown;
  /** The tables it was read from; null: any. */
  reads: readonly string[] | null;
}

/**
 * What has changed since the cache last looked, told by SQLite's own counters: total_changes()
 * counts this connection's row changes, and PRAGMA data_version moves when another connection
 * (the CLI, a second tool) commits. Both are read on every read, so a cached answer is never older
 * than the data. Row changes made through `writing` are known by table; any other change, and any
 * other connection's commit, could be anything.
 */
function changeCounters(db: Db) {
  const ownChanges = db.prepare('SELECT total_changes()').pluck();
  const otherChanges = db.prepare('PRAGMA data_version').pluck();
  let own = ownChanges.get() as number;
  let other = otherChanges.get() as number;
  return {
    /** Whether anything changed that `writing` did not account for (then it is taken as seen). */
    unaccounted(): boolean {
      const nowOwn = ownChanges.get() as number;
      const nowOther = otherChanges.get() as number;
      if (nowOwn === own && nowOther === other) return false;
      own = nowOwn;
      other = nowOther;
      return true;
    },
    /** Whether this connection changed rows since the cache last looked (taken as seen). */
    ownMoved(): boolean {
      const nowOwn = ownChanges.get() as number;
      if (nowOwn === own) return false;
      own = nowOwn;
      return true;
    },
  };
}

/**
 * Caches answers of read queries (lists a UI or script asks for again and again, the API key and
 * tool every call looks up) until the data they were read from changes. Any change the cache
 * cannot name drops every answer; the call log's inserts, made through `writing`, drop only the
 * answers read from the call log, so the lookups around every tool call are not read again each
 * time the log's buffer is written (every 50 ms while calls are made).
 */
export function createReadCache(db: Db, capacity = 256): ReadCache {
  const counters = changeCounters(db);
  const entries = new Map<string, Entry>();
  // Keys asked once since the data last changed. An answer is kept only when its key is asked a
  // second time: a script paging through a long list never asks the same page again, and keeping
  // every page it read would only fill the heap with answers that outlive their use (the collector
  // then costs more than the queries).
  const askedOnce = new Set<string>();
  // Moves whenever answers are dropped: all of them (`everything`) or those of one table. An
  // answer's stamp sums what concerns it, so a change during its computation is seen after.
  let everything = 0;
  const tableWrites = new Map<string, number>();
  let anyTableWrites = 0;
  /** The key of the entry last moved to the end of `entries` (it may have been dropped since). */
  let lastUsed: string | undefined;

  const dropAll = () => {
    entries.clear();
    askedOnce.clear();
    everything++;
  };
  const dropTable = (table: string) => {
    for (const [key, entry] of entries)
      if (entry.reads === null || entry.reads.includes(table)) entries.delete(key);
    tableWrites.set(table, (tableWrites.get(table) ?? 0) + 1);
    anyTableWrites++;
  };
  const stampOf = (reads: readonly string[] | null): number => {
    if (reads === null) return everything + anyTableWrites;
    let stamp = everything;
    for (const table of reads) stamp += tableWrites.get(table) ?? 0;
    return stamp;
  };
  const look = () => {
    if (counters.unaccounted()) dropAll();
  };

  /** The second ask of a key: its answer is kept unless what it was read from changed meanwhile. */
  async function readAndKeep<T>(key: string, compute: () => Promise<T>, reads: Entry['reads']) {
    const before = stampOf(reads);
    const value = await compute();
    // Anything written while the answer was read (here or by a transaction it waited for) makes
    // the answer's age unknown: do not keep it.
    look();
    if (stampOf(reads) !== before) return value;
    entries.set(key, { value, reads });
    lastUsed = key;
    if (entries.size > capacity) entries.delete(entries.keys().next().value!);
    return value;
  }

  return {
    async get<T>(key: string, compute: () => Promise<T>, reads?: readonly string[]): Promise<T> {
      look();
      const entry = entries.get(key);
      if (entry) {
        // Keep recently used entries at the end (a key asked again and again is there already).
        if (key !== lastUsed) {
          entries.delete(key);
          entries.set(key, entry);
          lastUsed = key;
        }
        return entry.value as T;
      }
      if (askedOnce.delete(key)) return readAndKeep(key, compute, reads ?? null);
      askedOnce.add(key);
      // A key asked again only after `capacity` other reads is not worth keeping either.
      if (askedOnce.size > capacity) askedOnce.delete(askedOnce.values().next().value!);
      return compute();
    },
    writing<T>(table: string, write: () => T): T {
      // A change made before this one, not through here, could be anything.
      look();
      try {
        return write();
      } finally {
        // Rolled back or not, the answers read from the table are dropped.
        if (counters.ownMoved()) dropTable(table);
      }
    },
  };
}
