import { sql } from 'kysely';
import { fromJson, toJson, type ColumnMap } from './db.js';
import { pageOf, patchRow, type StoreContext } from './sql/query.js';

export interface Metric {
  id: string;
  name: string;
  category: string;
  type: string;
  description: string | null;
  weight: number;
  critical: boolean;
  config: Record<string, unknown>;
}

export interface Scorecard {
  id: string;
  name: string;
  description: string | null;
  metrics: Metric[];
  passThreshold: number;
  created_at: string;
  updated_at: string;
}

interface Row {
  id: string;
  name: string;
  description: string | null;
  metrics: string;
  pass_threshold: number;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): Scorecard => ({
  id: r.id,
  name: r.name,
  description: r.description,
  metrics: fromJson<Metric[]>(r.metrics),
  passThreshold: r.pass_threshold,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const PATCH_COLUMNS: ColumnMap = {
  name: { column: 'name' },
  description: { column: 'description' },
  metrics: { column: 'metrics', json: true },
  passThreshold: { column: 'pass_threshold' },
};

/** The columns of a Row. */
const COLUMNS = sql.raw('id, name, description, metrics, pass_threshold, created_at, updated_at');

export function createScorecardStore(ctx: StoreContext) {
  const { db } = ctx;
  const get = async (workspaceId: string, id: string): Promise<Scorecard | undefined> => {
    const row = await db
      .selectFrom('scorecards')
      .select([
        'id',
        'name',
        'description',
        'metrics',
        'pass_threshold',
        'created_at',
        'updated_at',
      ])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && fromRow(row);
  };
  return {
    get,
    async insert(workspaceId: string, s: Scorecard): Promise<Scorecard> {
      await db
        .insertInto('scorecards')
        .values({
          id: s.id,
          workspace_id: workspaceId,
          name: s.name,
          description: s.description,
          metrics: toJson(s.metrics),
          pass_threshold: s.passThreshold,
          created_at: s.created_at,
          updated_at: s.updated_at,
        })
        .execute();
      return s;
    },
    async update(
      workspaceId: string,
      id: string,
      patch: Partial<Scorecard>,
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
          select: COLUMNS,
          from: sql`scorecards WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at, id`,
        },
        { limit, offset },
      );
      return { items: rows.map(fromRow), total };
    },
  };
}

export type ScorecardStore = ReturnType<typeof createScorecardStore>;
