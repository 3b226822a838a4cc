import { sql } from 'kysely';
import {
  deriveKeys,
  ENGINE_WIDE_KINDS,
  type KeyedKind,
  type KeyedRow,
} from '../domain/suite-keys.js';
import type { StoreContext } from './sql/query.js';

/** The table of each keyed kind. */
const TABLES: Record<KeyedKind, string> = {
  persona: 'personas',
  scorecard: 'scorecards',
  scenario: 'scenarios',
  schedule: 'schedules',
  tool: 'tools',
  alert: 'alerts',
};

/** Pairs per UPDATE when keys are persisted: three parameters each, far below either limit. */
const CHUNK = 300;

/**
 * The keys of a kind's resources in scope (#38): read as one light query (id, name, key and
 * creation time only), then derived (src/domain/suite-keys.ts); and the writing of the keys an
 * export or import gave to resources that had none.
 */
export function createSuiteKeyStore(ctx: StoreContext) {
  /** The rows in creation order: rowid breaks ties of created_at (one transaction's inserts). */
  async function rowsOf(kind: KeyedKind, workspaceId: string | null): Promise<KeyedRow[]> {
    const table = sql.table(TABLES[kind]);
    const where = ENGINE_WIDE_KINDS.has(kind) ? sql`` : sql`WHERE workspace_id = ${workspaceId}`;
    const result = await sql<KeyedRow>`SELECT id, name, "key", created_at FROM ${table} ${where}
      ORDER BY created_at, rowid`.execute(ctx.db);
    return result.rows;
  }

  return {
    /**
     * Every resource of the kind in scope with its key, stored or derived (a shared map: read it,
     * never change it). `workspaceId` is ignored for tools and alerts (engine-wide).
     */
    async keys(kind: KeyedKind, workspaceId: string | null): Promise<ReadonlyMap<string, string>> {
      const scope = ENGINE_WIDE_KINDS.has(kind) ? null : workspaceId;
      // Cached until anything is written (SQLite): pages of a list asked again derive nothing.
      return ctx.cache.get(`suite-keys:${kind}:${scope ?? ''}`, async () =>
        deriveKeys(await rowsOf(kind, scope), kind),
      );
    },
    /**
     * Stores these keys on the resources that have none yet (a stored key is never replaced), in
     * one transaction. Pass keys from `keys()`: they are unique in their scope.
     */
    async persist(kind: KeyedKind, keys: ReadonlyMap<string, string>): Promise<void> {
      const pairs = [...keys];
      if (pairs.length === 0) return;
      const table = sql.table(TABLES[kind]);
      await ctx.atomic(async (db) => {
        for (let i = 0; i < pairs.length; i += CHUNK) {
          const chunk = pairs.slice(i, i + CHUNK);
          const cases = sql.join(
            chunk.map(([id, key]) => sql`WHEN ${id} THEN ${key}`),
            sql` `,
          );
          const ids = sql.join(chunk.map(([id]) => sql`${id}`));
          await sql`UPDATE ${table} SET "key" = CASE id ${cases} END
            WHERE "key" IS NULL AND id IN (${ids})`.execute(db);
        }
      });
    },
  };
}

export type SuiteKeyStore = ReturnType<typeof createSuiteKeyStore>;
