import { sql } from 'kysely';
import type { Comparison } from '../domain/comparisons.js';
import { fromJson, toJson } from './db.js';
import { pageOf, type StoreContext } from './sql/query.js';

/**
 * Stored comparisons: each is built once and kept whole (its record as JSON text), listed newest
 * first per workspace. A workspace's comparisons go with it (ON DELETE CASCADE).
 */
export function createComparisonStore({ db }: StoreContext) {
  return {
    async insert(workspaceId: string, comparison: Comparison): Promise<void> {
      await db
        .insertInto('comparisons')
        .values({
          id: comparison.id,
          workspace_id: workspaceId,
          created_at: comparison.created_at,
          record: toJson(comparison),
        })
        .execute();
    },
    async get(workspaceId: string, id: string): Promise<Comparison | undefined> {
      const row = await db
        .selectFrom('comparisons')
        .select('record')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row === undefined ? undefined : fromJson<Comparison>(row.record);
    },
    /** A page of the workspace's comparisons, newest first (as executions list). */
    async list(
      workspaceId: string,
      page: { limit: number; offset: number },
    ): Promise<{ items: Comparison[]; total: number }> {
      const { rows, total } = await pageOf<{ record: string }>(
        db,
        {
          select: sql`record`,
          from: sql`comparisons WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at DESC, rowid DESC`,
        },
        page,
      );
      return { items: rows.map((r) => fromJson<Comparison>(r.record)), total };
    },
  };
}
