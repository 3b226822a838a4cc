import { fromJson, patchRow, toJson, type ColumnMap, type Db } from './db.js';

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

export function createScorecardStore(db: Db) {
  const getRow = db.prepare('SELECT * FROM scorecards WHERE workspace_id = ? AND id = ?');
  const get = (workspaceId: string, id: string): Scorecard | undefined => {
    const row = getRow.get(workspaceId, id) as Row | undefined;
    return row && fromRow(row);
  };
  return {
    get,
    insert(workspaceId: string, s: Scorecard): Scorecard {
      db.prepare(
        `INSERT INTO scorecards (id, workspace_id, name, description, metrics, pass_threshold, created_at, updated_at)
         VALUES (?,?,?,?,?,?,?,?)`,
      ).run(
        s.id,
        workspaceId,
        s.name,
        s.description,
        toJson(s.metrics),
        s.passThreshold,
        s.created_at,
        s.updated_at,
      );
      return s;
    },
    update(
      workspaceId: string,
      id: string,
      patch: Partial<Scorecard>,
      updatedAt: string,
    ): Scorecard | undefined {
      const changed = patchRow(db, {
        table: 'scorecards',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: { sql: 'workspace_id = ? AND id = ?', args: [workspaceId, id] },
      });
      return changed ? get(workspaceId, id) : undefined;
    },
    delete(workspaceId: string, id: string): boolean {
      return (
        db.prepare('DELETE FROM scorecards WHERE workspace_id = ? AND id = ?').run(workspaceId, id)
          .changes > 0
      );
    },
    list(
      workspaceId: string,
      limit: number,
      offset: number,
    ): { items: Scorecard[]; total: number } {
      const total = (
        db
          .prepare('SELECT COUNT(*) AS n FROM scorecards WHERE workspace_id = ?')
          .get(workspaceId) as { n: number }
      ).n;
      const rows = db
        .prepare(
          'SELECT * FROM scorecards WHERE workspace_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
        )
        .all(workspaceId, limit, offset) as Row[];
      return { items: rows.map(fromRow), total };
    },
  };
}

export type ScorecardStore = ReturnType<typeof createScorecardStore>;
