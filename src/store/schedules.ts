import { patchRow, prepared, type ColumnMap, type Db } from './db.js';

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

export interface ScheduleRun {
  id: string;
  scheduledFor: string | null;
  startedAt: string;
  executionId: string | null;
  trigger: 'schedule' | 'manual';
  outcome: 'started' | 'skipped' | 'failed_to_start';
  reason: string | null;
  late: boolean;
}

/** A schedule_runs row as SQLite answers it. */
interface RunRow {
  id: string;
  scheduled_for: string | null;
  started_at: string;
  execution_id: string | null;
  trig: ScheduleRun['trigger'];
  outcome: ScheduleRun['outcome'];
  reason: string | null;
  late: number;
}

/** One schedule of a workspace. */
function readSchedule(db: Db, workspaceId: string, id: string): Schedule | undefined {
  const row = prepared(db, 'SELECT * FROM schedules WHERE workspace_id = ? AND id = ?').get(
    workspaceId,
    id,
  ) as Row | undefined;
  return row && fromRow(row);
}

/** Saving schedules, and moving them along as they run. */
function scheduleWrites(db: Db) {
  return {
    insert(workspaceId: string, s: Schedule): Schedule {
      db.prepare(
        `INSERT INTO schedules (id, workspace_id, name, scenario_id, periodicity, timezone, period_end_condition, is_active,
           next_run, last_run, ended_reason, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      ).run(
        s.id,
        workspaceId,
        s.name,
        s.scenarioId,
        s.periodicity,
        s.timezone,
        s.periodEndCondition,
        s.isActive ? 1 : 0,
        s.nextRun,
        s.lastRun,
        s.endedReason,
        s.created_at,
        s.updated_at,
      );
      return s;
    },
    update(
      workspaceId: string,
      id: string,
      patch: Partial<Schedule>,
      updatedAt: string,
    ): Schedule | undefined {
      const changed = patchRow(db, {
        table: 'schedules',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: { sql: 'workspace_id = ? AND id = ?', args: [workspaceId, id] },
      });
      return changed ? readSchedule(db, workspaceId, id) : undefined;
    },
    delete(workspaceId: string, id: string): boolean {
      return (
        db.prepare('DELETE FROM schedules WHERE workspace_id = ? AND id = ?').run(workspaceId, id)
          .changes > 0
      );
    },
    /** After a run: when it was, when the next is, how many scheduled runs so far, and whether it ended. */
    advance(
      id: string,
      f: {
        lastRun: string;
        nextRun: string | null;
        scheduledRuns: number;
        isActive: boolean;
        endedReason: string | null;
        at: string;
      },
    ): void {
      db.prepare(
        'UPDATE schedules SET last_run = ?, next_run = ?, scheduled_runs = ?, is_active = ?, ended_reason = ?, updated_at = ? WHERE id = ?',
      ).run(f.lastRun, f.nextRun, f.scheduledRuns, f.isActive ? 1 : 0, f.endedReason, f.at, id);
    },
    /** A run started by hand: it is the schedule's last run, and its timed runs stay as they were. */
    ranAt(id: string, at: string): void {
      db.prepare('UPDATE schedules SET last_run = ?, updated_at = ? WHERE id = ?').run(at, at, id);
    },
    end(id: string, reason: string, at: string): void {
      db.prepare(
        'UPDATE schedules SET is_active = 0, next_run = NULL, ended_reason = ?, updated_at = ? WHERE id = ?',
      ).run(reason, at, id);
    },
  };
}

/** Finding schedules: a page, those due, those of a scenario. */
function scheduleReads(db: Db) {
  return {
    list(workspaceId: string, limit: number, offset: number): { items: Schedule[]; total: number } {
      const total = (
        db
          .prepare('SELECT COUNT(*) AS n FROM schedules WHERE workspace_id = ?')
          .get(workspaceId) as { n: number }
      ).n;
      const rows = db
        .prepare(
          'SELECT * FROM schedules WHERE workspace_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
        )
        .all(workspaceId, limit, offset) as Row[];
      return { items: rows.map(fromRow), total };
    },
    /** Active schedules whose next run is due, across workspaces. */
    due(nowIso: string): (Schedule & { workspaceId: string; scheduledRuns: number })[] {
      return (
        db
          .prepare(
            'SELECT * FROM schedules WHERE is_active = 1 AND next_run IS NOT NULL AND next_run <= ? ORDER BY next_run',
          )
          .all(nowIso) as (Row & { workspace_id: string; scheduled_runs: number })[]
      ).map((r) => ({
        ...fromRow(r),
        workspaceId: r.workspace_id,
        scheduledRuns: r.scheduled_runs,
      }));
    },
    forScenario(workspaceId: string, scenarioId: string): { id: string; name: string }[] {
      return db
        .prepare(
          'SELECT id, name FROM schedules WHERE workspace_id = ? AND scenario_id = ? ORDER BY name',
        )
        .all(workspaceId, scenarioId) as { id: string; name: string }[];
    },
  };
}

/** The runs of a schedule: each one recorded, the list, the last execution. */
function scheduleRuns(db: Db) {
  return {
    addRun(r: ScheduleRun & { scheduleId: string }): ScheduleRun {
      db.prepare(
        'INSERT INTO schedule_runs (id, schedule_id, scheduled_for, started_at, execution_id, trig, outcome, reason, late) VALUES (?,?,?,?,?,?,?,?,?)',
      ).run(
        r.id,
        r.scheduleId,
        r.scheduledFor,
        r.startedAt,
        r.executionId,
        r.trigger,
        r.outcome,
        r.reason,
        r.late ? 1 : 0,
      );
      const { scheduleId: _s, ...run } = r;
      return run;
    },
    runs(id: string): ScheduleRun[] {
      return (
        db
          .prepare(
            'SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY started_at DESC, rowid DESC',
          )
          .all(id) as RunRow[]
      ).map((r) => ({
        id: r.id,
        scheduledFor: r.scheduled_for,
        startedAt: r.started_at,
        executionId: r.execution_id,
        trigger: r.trig,
        outcome: r.outcome,
        reason: r.reason,
        late: r.late === 1,
      }));
    },
    lastExecution(id: string): string | null {
      return (
        (db
          .prepare(
            "SELECT execution_id FROM schedule_runs WHERE schedule_id = ? AND outcome = 'started' ORDER BY started_at DESC, rowid DESC LIMIT 1",
          )
          .pluck()
          .get(id) as string | undefined) ?? null
      );
    },
  };
}

export function createScheduleStore(db: Db) {
  const get = (workspaceId: string, id: string) => readSchedule(db, workspaceId, id);
  return {
    ...scheduleWrites(db),
    ...scheduleReads(db),
    ...scheduleRuns(db),
    get,
  };
}

export type ScheduleStore = ReturnType<typeof createScheduleStore>;
