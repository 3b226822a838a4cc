import { fromJson, toJson } from './db.js';
import type { StoreContext } from './sql/query.js';

/** Engine settings, one JSON value per key (smtp, and later the language model roles). */
export function createSettingsStore(ctx: StoreContext) {
  return {
    async get<T>(key: string): Promise<T | null> {
      const row = await ctx.db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', key)
        .executeTakeFirst();
      return row ? fromJson<T>(row.value) : null;
    },
    async set(key: string, value: unknown, at: string): Promise<void> {
      if (value === null) await ctx.db.deleteFrom('settings').where('key', '=', key).execute();
      else
        await ctx.db
          .insertInto('settings')
          .values({ key, value: toJson(value), updated_at: at })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet((eb) => ({
              value: eb.ref('excluded.value'),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .execute();
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
