import { patchRow, type ColumnMap, type Db } from './db.js';

export interface Schedule {
  id: string;
  name: string;
  scenarioId: string;
  periodicity: string;
  timezone: string;
  periodEndCondition: string;
  isActive: boolean;
  nextRun: string | null;
  lastRun: string | null;
  endedReason: string | null;
  created_at: string;
  updated_at: string;
}

interface Row {
  id: string;
  name: string;
  scenario_id: string;
  periodicity: string;
  timezone: string;
  period_end_condition: string;
  is_active: number;
  next_run: string | null;
  last_run: string | null;
  ended_reason: string | null;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): Schedule => ({
  id: r.id,
  name: r.name,
  scenarioId: r.scenario_id,
  periodicity: r.periodicity,
  timezone: r.timezone,
  periodEndCondition: r.period_end_condition,
  isActive: r.is_active === 1,
  nextRun: r.next_run,
  lastRun: r.last_run,
  endedReason: r.ended_reason,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const PATCH_COLUMNS: ColumnMap = {
  name: { column: 'name' },
  scenarioId: { column: 'scenario_id' },
  periodicity: { column: 'periodicity' },
  timezone: { column: 'timezone' },
  periodEndCondition: { column: 'period_end_condition' },
  isActive: { column: 'is_active' },
  nextRun: { column: 'next_run' },
  endedReason: { column: 'ended_reason' },
};

export function createScheduleStore(db: Db) {
  const getRow = db.prepare('SELECT * FROM schedules WHERE workspace_id = ? AND id = ?');
  const get = (workspaceId: string, id: string): Schedule | undefined => {
    const row = getRow.get(workspaceId, id) as Row | undefined;
    return row && fromRow(row);
  };
  return {
    get,
    insert(workspaceId: string, s: Schedule): Schedule {
      db.prepare(
        `INSERT INTO schedules (id, workspace_id, name, scenario_id, periodicity, timezone, period_end_condition, is_active,
           next_run, last_run, ended_reason, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      ).run(s.id, workspaceId, s.name, s.scenarioId, s.periodicity, s.timezone, s.periodEndCondition, s.isActive ? 1 : 0,
        s.nextRun, s.lastRun, s.endedReason, s.created_at, s.updated_at);
      return s;
    },
    update(workspaceId: string, id: string, patch: Partial<Schedule>, updatedAt: string): Schedule | undefined {
      const changed = patchRow(db, 'schedules', PATCH_COLUMNS, patch, { updated_at: updatedAt },
        { sql: 'workspace_id = ? AND id = ?', args: [workspaceId, id] });
      return changed ? get(workspaceId, id) : undefined;
    },
    delete(workspaceId: string, id: string): boolean {
      return db.prepare('DELETE FROM schedules WHERE workspace_id = ? AND id = ?').run(workspaceId, id).changes > 0;
    },
    list(workspaceId: string, limit: number, offset: number): { items: Schedule[]; total: number } {
      const total = (db.prepare('SELECT COUNT(*) AS n FROM schedules WHERE workspace_id = ?').get(workspaceId) as { n: number }).n;
      const rows = db.prepare('SELECT * FROM schedules WHERE workspace_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?')
        .all(workspaceId, limit, offset) as Row[];
      return { items: rows.map(fromRow), total };
    },
    forScenario(workspaceId: string, scenarioId: string): { id: string; name: string }[] {
      return db.prepare('SELECT id, name FROM schedules WHERE workspace_id = ? AND scenario_id = ?')
        .all(workspaceId, scenarioId) as { id: string; name: string }[];
    },
  };
}

export type ScheduleStore = ReturnType<typeof createScheduleStore>;
