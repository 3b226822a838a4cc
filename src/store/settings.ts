import { fromJson, prepared, toJson, type Db } from './db.js';

/** Engine settings, one JSON value per key (smtp, and later the language model roles). */
export function createSettingsStore(db: Db) {
  return {
    get<T>(key: string): T | null {
      const row = prepared(db, 'SELECT value FROM settings WHERE key = ?').get(key) as
        { value: string } | undefined;
      return row ? fromJson<T>(row.value) : null;
    },
    set(key: string, value: unknown, at: string): void {
      if (value === null) db.prepare('DELETE FROM settings WHERE key = ?').run(key);
      else
        db.prepare(
          'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        ).run(key, toJson(value), at);
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
