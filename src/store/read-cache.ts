import type { Db } from './db.js';

/**
 * Caches answers of read queries (lists a UI or script asks for again and again) until anything in
 * the database changes. Validity is checked on every read against SQLite's own counters:
 * total_changes() counts this connection's writes, and PRAGMA data_version moves when another
 * connection (the CLI, a second tool) commits. So a cached answer is never older than the data.
 */
export function createReadCache(db: Db, capacity = 256) {
  const ownChanges = db.prepare('SELECT total_changes()').pluck();
  const otherChanges = db.prepare('PRAGMA data_version').pluck();
  const entries = new Map<string, unknown>();
  let stamp = '';

  return {
    get<T>(key: string, compute: () => T): T {
      const now = `${ownChanges.get()}:${otherChanges.get()}`;
      if (now !== stamp) {
        entries.clear();
        stamp = now;
      }
      if (entries.has(key)) {
        const value = entries.get(key) as T;
        entries.delete(key); // keep recently used entries at the end
        entries.set(key, value);
        return value;
      }
      const value = compute();
      // A compute that wrote (it should not) would change the stamp: do not keep its answer.
      if (`${ownChanges.get()}:${otherChanges.get()}` !== stamp) return value;
      entries.set(key, value);
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
      return value;
    },
  };
}

export type ReadCache = ReturnType<typeof createReadCache>;
