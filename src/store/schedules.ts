import { sql, type Insertable, type Kysely } from 'kysely';
import type { Schedule, SchedulePatch, ScheduleRun } from '../domain/schedules.js';
import { recordColumns } from './record-columns.js';
import { pageOf, patchRow, type StoreContext } from './sql/query.js';
import type { ScheduleRuns, Schedules, Tables } from './sql/tables.js';

export type { Schedule, SchedulePatch, ScheduleRun };

/**
 * The schedule's columns in the `schedules` table (besides `workspace_id` and the scheduler's
 * `scheduled_runs`), in answer order.
 */
const COLUMNS = recordColumns<Schedule>({
  id: { column: 'id' },
  key: { column: 'key' },
  name: { column: 'name' },
  scenarioId: { column: 'scenario_id' },
  periodicity: { column: 'periodicity' },
  timezone: { column: 'timezone' },
  periodEndCondition: { column: 'period_end_condition' },
  isActive: { column: 'is_active', flag: true },
  nextRun: { column: 'next_run' },
  lastRun: { column: 'last_run' },
  endedReason: { column: 'ended_reason' },
  maxCostUsd: { column: 'max_cost_usd' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

/** A run's columns in `schedule_runs` (besides `schedule_id`); `trig`, as TRIGGER is an SQL keyword. */
const RUN_COLUMNS = recordColumns<ScheduleRun>({
  id: { column: 'id' },
  scheduledFor: { column: 'scheduled_for' },
  startedAt: { column: 'started_at' },
  executionId: { column: 'execution_id' },
  trigger: { column: 'trig' },
  outcome: { column: 'outcome' },
  reason: { column: 'reason' },
  late: { column: 'late', flag: true },
});

type Row = Record<string, unknown>;

const FIELDS = Object.keys(COLUMNS.fields);
// The last run is the runs' own (advance, ranAt): a change never sets it.
const PATCH_COLUMNS = COLUMNS.patchColumns(['id', 'key', 'created_at', 'updated_at', 'lastRun']);

/** The columns of a schedule, from `schedules`. */
const SELECT = sql.raw(COLUMNS.selectList('schedules', FIELDS));
const RUN_SELECT = sql.raw(
  RUN_COLUMNS.selectList('schedule_runs', Object.keys(RUN_COLUMNS.fields)),
);

type DueSchedule = Schedule & { workspaceId: string; scheduledRuns: number };

/** A due schedule: the record, then the workspace and count the scheduler needs to run it. */
const toDue = COLUMNS.reader<DueSchedule>(FIELDS, ['workspaceId', 'scheduledRuns']);

/** One schedule of a workspace. */
async function readSchedule(
  db: Kysely<Tables>,
  workspaceId: string,
  id: string,
): Promise<Schedule | undefined> {
  const { rows } = await sql<Row>`SELECT ${SELECT} FROM schedules
    WHERE workspace_id = ${workspaceId} AND id = ${id}`.execute(db);
  return rows[0] && COLUMNS.fromRow(rows[0]);
}

/** Saving schedules. */
function scheduleWrites({ db }: StoreContext) {
  return {
    async insert(workspaceId: string, s: Schedule): Promise<Schedule> {
      const values = { workspace_id: workspaceId, ...COLUMNS.toRow(s) } as Insertable<Schedules>;
      await db.insertInto('schedules').values(values).execute();
      return s;
    },
    async update(
      workspaceId: string,
      id: string,
      patch: SchedulePatch,
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
          select: SELECT,
          from: sql`schedules WHERE workspace_id = ${workspaceId}`,
          order: sql`created_at, id`,
        },
        { limit, offset },
      );
      return { items: rows.map(COLUMNS.fromRow), total };
    },
    /**
     * Active schedules whose next run is due, across workspaces. Servers sharing a database run
     * their schedulers one at a time (the scheduler's lock), so a read is enough here.
     */
    async due(nowIso: string): Promise<DueSchedule[]> {
      const { rows } = await sql<Row & { workspace_id: string; scheduled_runs: number }>`
        SELECT ${SELECT}, workspace_id, scheduled_runs FROM schedules
        WHERE is_active = 1 AND next_run IS NOT NULL AND next_run <= ${nowIso}
        ORDER BY next_run`.execute(db);
      return rows.map((r) => toDue(r, r.workspace_id, r.scheduled_runs));
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

/** The runs of a schedule: each one recorded, the list, the last execution. */
function scheduleRuns({ db }: StoreContext) {
  return {
    async addRun(r: ScheduleRun & { scheduleId: string }): Promise<ScheduleRun> {
      const { scheduleId, ...run } = r;
      const values = {
        schedule_id: scheduleId,
        ...RUN_COLUMNS.toRow(run),
      } as Insertable<ScheduleRuns>;
      await db.insertInto('schedule_runs').values(values).execute();
      return run;
    },
    /** Newest first; rowid orders runs started in the same millisecond as they were recorded. */
    async runs(id: string): Promise<ScheduleRun[]> {
      const { rows } = await sql<Row>`SELECT ${RUN_SELECT}
        FROM schedule_runs WHERE schedule_id = ${id} ORDER BY started_at DESC, rowid DESC`.execute(
        db,
      );
      return rows.map(RUN_COLUMNS.fromRow);
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
