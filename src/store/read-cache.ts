import type { Db } from './db.js';

/** Answers of read queries kept while the data has not changed; `compute` reads afresh. */
export interface ReadCache {
  get<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

/** No cache: every read computes (PostgreSQL, where other servers write unseen, and transactions). */
export const noReadCache: ReadCache = { get: (_key, compute) => compute() };

/**
 * Caches answers of read queries (lists a UI or script asks for again and again) until anything in
 * the database changes. Validity is checked on every read against SQLite's own counters:
 * total_changes() counts this connection's writes, and PRAGMA data_version moves when another
 * connection (the CLI, a second tool) commits. So a cached answer is never older than the data.
 */
export function createReadCache(db: Db, capacity = 256): ReadCache {
  const ownChanges = db.prepare('SELECT total_changes()').pluck();
  const otherChanges = db.prepare('PRAGMA data_version').pluck();
  // Two plain statements cost less than one over the pragma_data_version table function.
  const changes = (): string => `${String(ownChanges.get())}:${String(otherChanges.get())}`;
  const entries = new Map<string, unknown>();
  // Keys asked once since the data last changed. An answer is kept only when its key is asked a
  // second time: a script paging through a long list never asks the same page again, and keeping
  // every page it read would only fill the heap with answers that outlive their use (the collector
  // then costs more than the queries).
  const askedOnce = new Set<string>();
  let stamp = '';

  return {
    async get<T>(key: string, compute: () => Promise<T>): Promise<T> {
      const now = changes();
      if (now !== stamp) {
        entries.clear();
        askedOnce.clear();
        stamp = now;
      }
      if (entries.has(key)) {
        const value = entries.get(key) as T;
        entries.delete(key); // keep recently used entries at the end
        entries.set(key, value);
        return value;
      }
      const value = await compute();
      if (!askedOnce.has(key)) {
        askedOnce.add(key);
        // A key asked again only after `capacity` other reads is not worth keeping either.
        if (askedOnce.size > capacity) askedOnce.delete(askedOnce.values().next().value!);
        return value;
      }
      askedOnce.delete(key);
      // Anything written while the answer was read (here or by a transaction it waited for) makes
      // the answer's age unknown: do not keep it.
      if (changes() !== now || stamp !== now) return value;
      entries.set(key, value);
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
      return value;
    },
  };
}
