import { sql, type Kysely } from 'kysely';
import type { ColumnMap } from './db.js';
import { pageOf, patchRow, type StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';

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

/** A schedule_runs row as the database answers it. */
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

/** The columns of a Row, from `schedules`. */
const COLUMNS = sql.raw(
  'id, name, scenario_id, periodicity, timezone, period_end_condition, is_active, next_run, last_run, ended_reason, created_at, updated_at',
);

/** One schedule of a workspace. */
async function readSchedule(
  db: Kysely<Tables>,
  workspaceId: string,
  id: string,
): Promise<Schedule | undefined> {
  const { rows } = await sql<Row>`SELECT ${COLUMNS} FROM schedules
    WHERE workspace_id = ${workspaceId} AND id = ${id}`.execute(db);
  return rows[0] && fromRow(rows[0]);
}

/** Saving schedules. */
function scheduleWrites({ db }: StoreContext) {
  return {
    async insert(workspaceId: string, s: Schedule): Promise<Schedule> {
      await db
        .insertInto('schedules')
        .values({
          id: s.id,
          workspace_id: workspaceId,
          name: s.name,
          scenario_id: s.scenarioId,
          periodicity: s.periodicity,
          timezone: s.timezone,
          period_end_condition: s.periodEndCondition,
          is_active: s.isActive ? 1 : 0,
          next_run: s.nextRun,
          last_run: s.lastRun,
          ended_reason: s.endedReason,
          created_at: s.created_at,
          updated_at: s.updated_at,
        })
        .execute();
      return s;
    },
    async update(
      workspaceId: string,
      id: string,
      patch: Partial<Schedule>,
      updatedAt: string,
    ): Promise<Schedule | undefined> {
      const changed = await patchRow(db, {
        table: 'schedules',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: sql`workspace_id = ${workspaceId} AND id = ${id}`,
      });
      return changed ? readSchedule(db, workspaceId, id) : undefined;
    },
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('schedules')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** Moving schedules along as they run. */
function scheduleMoves({ db }: StoreContext) {
  return {
    /** After a run: when it was, when the next is, how many scheduled runs so far, and whether it ended. */
    async advance(
      id: string,
      f: {
        lastRun: string;
        nextRun: string | null;
        scheduledRuns: number;
        isActive: boolean;
        endedReason: string | null;
        at: string;
      },
    ): Promise<void> {
      await db
        .updateTable('schedules')
        .set({
          last_run: f.lastRun,
          next_run: f.nextRun,
          scheduled_runs: f.scheduledRuns,
          is_active: f.isActive ? 1 : 0,
          ended_reason: f.endedReason,
          updated_at: f.at,
        })
        .where('id', '=', id)
        .execute();
    },
    /** A run started by hand: it is the schedule's last run, and its timed runs stay as they were. */
    async ranAt(id: string, at: string): Promise<void> {
      await db
        .updateTable('schedules')
        .set({ last_run: at, updated_at: at })
        .where('id', '=', id)
        .execute();
    },
    async end(id: string, reason: string, at: string): Promise<void> {
      await db
        .updateTable('schedules')
        .set({ is_active: 0, next_run: null, ended_reason: reason, updated_at: at })
        .where('id', '=', id)
        .execute();
    },
  };
}

type DueSchedule = Schedule & { workspaceId: string; scheduledRuns: number };

/** Finding schedules: a page, those due, those of a scenario. */
function scheduleReads(ctx: StoreContext) {
  const { db } = ctx;
  return {
    async list(
      workspaceId: string,
      limit: number,
      offset: number,
    ): Promise<{ items: Schedule[]; total: number }> {
      const { rows, total } = await pageOf<Row>(
        db,
        {
          select: COLUMNS,
          from: sql`schedules WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at, id`,
        },
        { limit, offset },
      );
      return { items: rows.map(fromRow), total };
    },
    /**
     * Active schedules whose next run is due, across workspaces. Servers sharing a database run
     * their schedulers one at a time (the scheduler's lock), so a read is enough here.
     */
    async due(nowIso: string): Promise<DueSchedule[]> {
      const { rows } = await sql<Row & { workspace_id: string; scheduled_runs: number }>`
        SELECT ${COLUMNS}, workspace_id, scheduled_runs FROM schedules
        WHERE is_active = 1 AND next_run IS NOT NULL AND next_run <= ${nowIso}
        ORDER BY next_run`.execute(db);
      return rows.map((r) => ({
        ...fromRow(r),
        workspaceId: r.workspace_id,
        scheduledRuns: r.scheduled_runs,
      }));
    },
    async forScenario(
      workspaceId: string,
      scenarioId: string,
    ): Promise<{ id: string; name: string }[]> {
      return db
        .selectFrom('schedules')
        .select(['id', 'name'])
        .where('workspace_id', '=', workspaceId)
        .where('scenario_id', '=', scenarioId)
        .orderBy('name')
        .execute();
    },
  };
}

const runFromRow = (r: RunRow): ScheduleRun => ({
  id: r.id,
  scheduledFor: r.scheduled_for,
  startedAt: r.started_at,
  executionId: r.execution_id,
  trigger: r.trig,
  outcome: r.outcome,
  reason: r.reason,
  late: r.late === 1,
});

/** The runs of a schedule: each one recorded, the list, the last execution. */
function scheduleRuns({ db }: StoreContext) {
  return {
    async addRun(r: ScheduleRun & { scheduleId: string }): Promise<ScheduleRun> {
      await db
        .insertInto('schedule_runs')
        .values({
          id: r.id,
          schedule_id: r.scheduleId,
          scheduled_for: r.scheduledFor,
          started_at: r.startedAt,
          execution_id: r.executionId,
          trig: r.trigger,
          outcome: r.outcome,
          reason: r.reason,
          late: r.late ? 1 : 0,
        })
        .execute();
      const { scheduleId: _s, ...run } = r;
      return run;
    },
    /** Newest first; rowid orders runs started in the same millisecond as they were recorded. */
    async runs(id: string): Promise<ScheduleRun[]> {
      const { rows } = await sql<RunRow>`SELECT id, scheduled_for, started_at, execution_id, trig,
          outcome, reason, late
        FROM schedule_runs WHERE schedule_id = ${id} ORDER BY started_at DESC, rowid DESC`.execute(
        db,
      );
      return rows.map(runFromRow);
    },
    async lastExecution(id: string): Promise<string | null> {
      const { rows } = await sql<{ execution_id: string | null }>`SELECT execution_id
        FROM schedule_runs WHERE schedule_id = ${id} AND outcome = 'started'
        ORDER BY started_at DESC, rowid DESC LIMIT 1`.execute(db);
      return rows[0]?.execution_id ?? null;
    },
  };
}

export function createScheduleStore(ctx: StoreContext) {
  const get = (workspaceId: string, id: string) => readSchedule(ctx.db, workspaceId, id);
  return {
    ...scheduleWrites(ctx),
    ...scheduleMoves(ctx),
    ...scheduleReads(ctx),
    ...scheduleRuns(ctx),
    get,
  };
}

export type ScheduleStore = ReturnType<typeof createScheduleStore>;
