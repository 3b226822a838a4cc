import { sql, type Insertable } from 'kysely';
import type { Metric, Scorecard, ScorecardPatch } from '../domain/scorecards.js';
import { recordColumns } from './record-columns.js';
import type { Scorecards } from './sql/tables.js';
import { pageOf, patchRow, type StoreContext } from './sql/query.js';

export type { Metric, Scorecard };

/** The scorecard's columns in the `scorecards` table (besides `workspace_id`), in answer order. */
const COLUMNS = recordColumns<Scorecard>({
  id: { column: 'id' },
  key: { column: 'key' },
  name: { column: 'name' },
  description: { column: 'description' },
  metrics: { column: 'metrics', json: true },
  passThreshold: { column: 'pass_threshold' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

type Row = Record<string, unknown>;

const PATCH_COLUMNS = COLUMNS.patchColumns(['id', 'key', 'created_at', 'updated_at']);
const SELECT = sql.raw(COLUMNS.selectList('scorecards', Object.keys(COLUMNS.fields)));

export function createScorecardStore(ctx: StoreContext) {
  const { db } = ctx;
  const get = async (workspaceId: string, id: string): Promise<Scorecard | undefined> => {
    const row = await db
      .selectFrom('scorecards')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && COLUMNS.fromRow(row);
  };
  return {
    get,
    async insert(workspaceId: string, s: Scorecard): Promise<Scorecard> {
      const values = { workspace_id: workspaceId, ...COLUMNS.toRow(s) } as Insertable<Scorecards>;
      await db.insertInto('scorecards').values(values).execute();
      return s;
    },
    async update(
      workspaceId: string,
      id: string,
      patch: ScorecardPatch,
      updatedAt: string,
    ): Promise<Scorecard | undefined> {
      const changed = await patchRow(db, {
        table: 'scorecards',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: sql`workspace_id = ${workspaceId} AND id = ${id}`,
      });
      return changed ? get(workspaceId, id) : undefined;
    },
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('scorecards')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async list(
      workspaceId: string,
      limit: number,
      offset: number,
    ): Promise<{ items: Scorecard[]; total: number }> {
      const { rows, total } = await pageOf<Row>(
        db,
        {
          select: SELECT,
          from: sql`scorecards WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at, id`,
        },
        { limit, offset },
      );
      return { items: rows.map(COLUMNS.fromRow), total };
    },
  };
}

export type ScorecardStore = ReturnType<typeof createScorecardStore>;
