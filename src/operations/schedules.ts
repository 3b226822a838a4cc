import { z } from 'zod';
import { isoNow } from '../clock.js';
import { invalidField, notFound, validationError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { cronFor, isTimeZone, nextSlot, parseEndCondition } from '../schedules/periodicity.js';
import { describePeriodicity, nextSlots } from '../schedules/preview.js';
import { Schedule, ScheduleEditable, ScheduleRun } from '../domain/schedules.js';
import { EXECUTION_STATUSES } from '../domain/executions.js';
import type { Store } from '../store/index.js';
import { Deleted, Id, pagination, Pagination, Paging, WorkspaceParams, deleted } from './common.js';
import { assertAgentsShared } from '../simulations/agent-sharing.js';
import { assertScheduleCapPriced } from '../simulations/schedule-cap.js';
import { defineOperation, type Caller, type OperationContext } from './types.js';
import { SuiteKey } from '../domain/suite-keys.js';
import { withKey, withKeys, withoutKey } from './suite-key-answers.js';

/** Create and update answer as before; GET and list answer the suite key too. */
const ScheduleSchema = Schedule.omit({ key: true });
const KeyedSchedule = Schedule.extend({ key: SuiteKey });

const RunSchema = ScheduleRun.extend({
  result: z
    .object({
      status: z.enum(EXECUTION_STATUSES),
      counts: z.record(z.string(), z.number().int()),
      avg_score: z.number().nullable(),
      pass_rate: z.number().nullable(),
      cost_usd: z
        .number()
        .nullable()
        .describe(
          "What the run's simulations cost; null while any is unpriced (see unpriced_models)",
        ),
      unpriced_models: z.array(z.string()),
    })
    .nullable()
    .describe("The started execution's status and result; null when none started"),
});

/** A run with its execution's status and result, as the runs list and a run by hand answer it. */
async function withResult(ctx: OperationContext, workspaceId: string, run: ScheduleRun) {
  const e = run.executionId
    ? await ctx.store.simulations.execution(workspaceId, run.executionId)
    : undefined;
  const result = e
    ? {
        status: e.status,
        counts: e.counts,
        avg_score: e.avg_score,
        pass_rate: e.pass_rate,
        cost_usd: e.cost_usd,
        unpriced_models: e.unpriced_models,
      }
    : null;
  return { ...run, result };
}

/** What a caller sends: the schedule's editable fields, with the rules of each. */
const ScheduleInput = ScheduleEditable.extend({
  name: z.string().trim().min(1).max(200),
  scenarioId: Id,
  periodicity: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe(
      'hourly (minute 0), daily (00:00), weekly (Monday 00:00), monthly (1st 00:00), or a five-field cron expression',
    ),
  // Described on their optionals, as before: the published document stays byte for byte the same.
  timezone: z.string().min(1).max(64).optional().describe('IANA time zone, default UTC'),
  periodEndCondition: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('never (default), after:<N> scheduled runs, or until:<ISO date>'),
  maxCostUsd: z
    .number()
    .min(0)
    .max(1_000_000)
    .nullable()
    .optional()
    .describe("Each run's spend cap in dollars, as scenarios.execute takes it; null removes it"),
}).partial();

/** A new schedule's fields (the suite files are written from it too). */
export const ScheduleCreateInput = ScheduleInput.required({
  name: true,
  scenarioId: true,
  periodicity: true,
});

/** Validates the timing fields together and computes the next run they give (null when inactive). */
function timing(
  ctx: OperationContext,
  s: Pick<Schedule, 'periodicity' | 'timezone' | 'periodEndCondition' | 'isActive'>,
  { periodicitySent = true }: { periodicitySent?: boolean } = {},
): string | null {
  const details: ErrorDetail[] = [];
  // A stored periodicity is read as it was accepted: a change that leaves it alone (a pause, a
  // new name) never fails on a rule added after it was saved.
  const cron = cronFor(s.periodicity, { strictSteps: periodicitySent });
  if ('error' in cron) details.push({ path: 'periodicity', message: cron.error });
  if (!isTimeZone(s.timezone))
    details.push({
      path: 'timezone',
      message: 'must be an IANA time zone such as UTC or Europe/Paris',
    });
  const end = parseEndCondition(s.periodEndCondition);
  if ('error' in end) details.push({ path: 'periodEndCondition', message: end.error });
  if (details.length)
    throw validationError(details.map((d) => `${d.path} ${d.message}`).join('; '), details);
  const now = new Date(ctx.clock.now());
  if (!('error' in end) && end.kind === 'until' && s.isActive && end.at <= now) {
    throw invalidField('periodEndCondition', 'the until date has already passed');
  }
  if (!s.isActive || 'error' in cron) return null;
  return nextSlot(cron.cron, s.timezone, now);
}

const scenarioMustExist = async (
  store: Store,
  workspaceId: string,
  scenarioId: string,
): Promise<void> => {
  if (!(await store.scenarios.get(workspaceId, scenarioId)))
    throw invalidField('scenarioId', `unknown scenario id: ${scenarioId}`);
};

/**
 * A workspace token schedules and runs only scenarios whose target agents are shared with its
 * workspace: the runs would reach the others with the engine's stored credentials.
 */
async function checkSharedForToken(
  caller: Caller,
  store: Store,
  workspaceId: string,
  scenarioId: string,
): Promise<void> {
  if (caller.kind !== 'token') return;
  const scenario = await store.scenarios.get(workspaceId, scenarioId);
  if (scenario) await assertAgentsShared(store, workspaceId, scenario.targetAgents);
}

/**
 * A change that sets a cap, or moves a capped schedule to another scenario: the cap must be
 * priceable (schedule-cap.ts). Checked before the change's transaction, which awaits only the store.
 */
async function capOfPatchPriced(
  ctx: OperationContext,
  workspaceId: string,
  scheduleId: string,
  patch: { scenarioId?: string; maxCostUsd?: number | null },
): Promise<void> {
  if (patch.maxCostUsd === undefined && patch.scenarioId === undefined) return;
  const current = await ctx.store.schedules.get(workspaceId, scheduleId);
  if (!current) return;
  await assertScheduleCapPriced(ctx, {
    workspaceId,
    scenarioId: patch.scenarioId ?? current.scenarioId,
    maxCostUsd: patch.maxCostUsd === undefined ? current.maxCostUsd : patch.maxCostUsd,
    sharedAgentsOnly: ctx.caller.kind === 'token',
  });
}

const base = '/api/v1/workspaces/:workspace_id/schedules';
const ItemParams = { ...WorkspaceParams, schedule_id: Id };

export const scheduleOperations = [
  defineOperation({
    name: 'schedules.list',
    summary: 'List schedules',
    http: { method: 'GET', path: base },
    params: WorkspaceParams,
    query: Paging,
    output: z.object({ schedules: z.array(KeyedSchedule), pagination: Pagination }),
    async handler({ workspace_id, limit, offset }, ctx) {
      const { items, total } = await ctx.store.schedules.list(workspace_id, limit, offset);
      const schedules = await withKeys(ctx.store, 'schedule', workspace_id, items);
      return { schedules, pagination: pagination(total, limit, offset) };
    },
  }),
  defineOperation({
    name: 'schedules.create',
    summary: 'Schedule recurring runs of a scenario',
    http: { method: 'POST', path: base, status: 201 },
    params: WorkspaceParams,
    body: ScheduleCreateInput.shape,
    output: z.object({ schedule: ScheduleSchema }),
    async handler({ workspace_id, ...input }, ctx) {
      await assertScheduleCapPriced(ctx, {
        workspaceId: workspace_id,
        scenarioId: input.scenarioId,
        maxCostUsd: input.maxCostUsd,
        sharedAgentsOnly: ctx.caller.kind === 'token',
      });
      return ctx.store.transaction(async (tx) => {
        await scenarioMustExist(tx, workspace_id, input.scenarioId);
        await checkSharedForToken(ctx.caller, tx, workspace_id, input.scenarioId);
        const draft = {
          periodicity: input.periodicity,
          timezone: input.timezone ?? 'UTC',
          periodEndCondition: input.periodEndCondition ?? 'never',
          isActive: input.isActive ?? true,
        };
        const nextRun = timing(ctx, draft);
        const now = isoNow(ctx.clock);
        return {
          schedule: withoutKey(
            await tx.schedules.insert(workspace_id, {
              id: newId('sch', ctx.clock.now()),
              key: null,
              name: input.name,
              scenarioId: input.scenarioId,
              ...draft,
              nextRun,
              lastRun: null,
              endedReason: null,
              maxCostUsd: input.maxCostUsd ?? null,
              created_at: now,
              updated_at: now,
            }),
          ),
        };
      });
    },
  }),
  defineOperation({
    name: 'schedules.get',
    summary: 'Get one schedule',
    http: { method: 'GET', path: `${base}/:schedule_id` },
    params: ItemParams,
    output: z.object({ schedule: KeyedSchedule }),
    async handler({ workspace_id, schedule_id }, ctx) {
      const schedule = await ctx.store.schedules.get(workspace_id, schedule_id);
      if (!schedule) throw notFound('schedule', schedule_id);
      return { schedule: await withKey(ctx.store, 'schedule', workspace_id, schedule) };
    },
  }),
  defineOperation({
    name: 'schedules.update',
    summary: 'Change any subset of a schedule; nextRun is recomputed',
    http: { method: 'PATCH', path: `${base}/:schedule_id` },
    params: ItemParams,
    body: ScheduleInput.shape,
    output: z.object({ schedule: ScheduleSchema }),
    async handler({ workspace_id, schedule_id, ...patch }, ctx) {
      if (Object.values(patch).every((v) => v === undefined))
        throw invalidField('', 'send at least one field to change');
      await capOfPatchPriced(ctx, workspace_id, schedule_id, patch);
      return ctx.store.transaction(async (tx) => {
        const current = await tx.schedules.get(workspace_id, schedule_id);
        if (!current) throw notFound('schedule', schedule_id);
        if (patch.scenarioId) {
          await scenarioMustExist(tx, workspace_id, patch.scenarioId);
          await checkSharedForToken(ctx.caller, tx, workspace_id, patch.scenarioId);
        }
        const merged = {
          ...current,
          ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
        };
        const nextRun = timing(ctx, merged, { periodicitySent: patch.periodicity !== undefined });
        // Reactivating a schedule that had ended starts it afresh.
        const endedReason = patch.isActive === true ? null : current.endedReason;
        const schedule = await tx.schedules.update(
          workspace_id,
          schedule_id,
          { ...patch, nextRun, endedReason },
          isoNow(ctx.clock),
        );
        return { schedule: withoutKey(schedule!) };
      });
    },
  }),
  defineOperation({
    name: 'schedules.runs',
    summary:
      'The runs of a schedule, newest first: scheduled or manual, started, skipped (overlap) or failed to start, and whether late',
    http: { method: 'GET', path: `${base}/:schedule_id/runs` },
    params: ItemParams,
    output: z.object({ runs: z.array(RunSchema) }),
    async handler({ workspace_id, schedule_id }, ctx) {
      if (!(await ctx.store.schedules.get(workspace_id, schedule_id)))
        throw notFound('schedule', schedule_id);
      const runs = await ctx.store.schedules.runs(schedule_id);
      return { runs: await Promise.all(runs.map((run) => withResult(ctx, workspace_id, run))) };
    },
  }),
  defineOperation({
    name: 'schedules.run',
    summary: "Run the schedule's scenario now (does not count towards after:N)",
    http: { method: 'POST', path: `${base}/:schedule_id/run`, status: 202 },
    params: ItemParams,
    output: z.object({ run: RunSchema }),
    async handler({ workspace_id, schedule_id }, ctx) {
      const schedule = await ctx.store.schedules.get(workspace_id, schedule_id);
      if (!schedule) throw notFound('schedule', schedule_id);
      // Refused before anything is recorded: a token learns nothing of an agent it may not run.
      await checkSharedForToken(ctx.caller, ctx.store, workspace_id, schedule.scenarioId);
      const run = await ctx.scheduler.runNow(workspace_id, schedule_id, schedule.scenarioId);
      return { run: await withResult(ctx, workspace_id, run) };
    },
  }),
  defineOperation({
    name: 'schedules.delete',
    summary: 'Delete a schedule',
    http: { method: 'DELETE', path: `${base}/:schedule_id` },
    params: ItemParams,
    output: Deleted,
    async handler({ workspace_id, schedule_id }, ctx) {
      if (!(await ctx.store.schedules.delete(workspace_id, schedule_id)))
        throw notFound('schedule', schedule_id);
      return deleted(schedule_id);
    },
  }),
  defineOperation({
    name: 'schedules.preview',
    summary:
      'The next runs of a periodicity, and what it means in words, by the rules a save applies (nothing is saved)',
    http: { method: 'POST', path: `${base}/preview` },
    params: WorkspaceParams,
    body: {
      periodicity: ScheduleInput.shape.periodicity.unwrap(),
      timezone: ScheduleInput.shape.timezone,
      count: z.number().int().min(1).max(10).default(3).describe('How many runs, default 3'),
    },
    output: z.object({
      nextRuns: z.array(z.string()).describe('ISO UTC times of the next runs, soonest first'),
      description: z
        .string()
        .nullable()
        .describe('In words ("every day at 09:00"), in the time zone given; null for rarer shapes'),
    }),
    handler({ periodicity, timezone = 'UTC', count }, ctx) {
      const cron = cronFor(periodicity);
      const details: ErrorDetail[] = [];
      if ('error' in cron) details.push({ path: 'periodicity', message: cron.error });
      if (!isTimeZone(timezone))
        details.push({
          path: 'timezone',
          message: 'must be an IANA time zone such as UTC or Europe/Paris',
        });
      if (details.length || 'error' in cron)
        throw validationError(details.map((d) => `${d.path} ${d.message}`).join('; '), details);
      return {
        nextRuns: nextSlots(cron.cron, timezone, new Date(ctx.clock.now()), count),
        description: describePeriodicity(periodicity, cron.cron),
      };
    },
  }),
];
