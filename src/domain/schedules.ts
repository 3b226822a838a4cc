import { z } from 'zod';
import { Timestamp } from './records.js';

/**
 * The schedule (recurring runs of a scenario) and its runs, defined once: the store reads and
 * writes them through column maps typed by these records, and the operations build their schemas
 * from them.
 */

// The order of the fields is the order the API publishes them in.
export const Schedule = z.object({
  id: z.string(),
  /** The suite key when stored (first export or import); null: not yet (answers derive it). */
  key: z.string().nullable(),
  name: z.string(),
  scenarioId: z.string(),
  periodicity: z
    .string()
    .describe('hourly | daily | weekly | monthly | five-field cron expression'),
  timezone: z.string().describe('IANA time zone the periodicity is read in'),
  periodEndCondition: z.string().describe('never | after:<N> | until:<ISO date>'),
  isActive: z.boolean(),
  nextRun: Timestamp.nullable(),
  lastRun: Timestamp.nullable(),
  endedReason: z.string().nullable(),
  maxCostUsd: z
    .number()
    .nullable()
    .describe("Each run's spend cap in dollars (scenarios.execute maxCostUsd); null: none"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Schedule = z.infer<typeof Schedule>;

/** What a caller may set: the scenario and its timing (the next run and the end are computed). */
export const ScheduleEditable = Schedule.pick({
  name: true,
  scenarioId: true,
  periodicity: true,
  timezone: true,
  periodEndCondition: true,
  isActive: true,
  maxCostUsd: true,
});

/**
 * What a change writes: the caller's fields, and the next run and end the engine computes from
 * them. The last run is the runs' own bookkeeping (advance, ranAt), never patched.
 */
export type SchedulePatch = Partial<
  z.infer<typeof ScheduleEditable> & Pick<Schedule, 'nextRun' | 'endedReason'>
>;

export const SCHEDULE_RUN_TRIGGERS = ['schedule', 'manual'] as const;
export const SCHEDULE_RUN_OUTCOMES = ['started', 'skipped', 'failed_to_start'] as const;

/** One run of a schedule: timed or by hand, and whether it started an execution. */
export const ScheduleRun = z.object({
  id: z.string(),
  scheduledFor: Timestamp.nullable(),
  startedAt: Timestamp,
  executionId: z.string().nullable(),
  trigger: z.enum(SCHEDULE_RUN_TRIGGERS),
  outcome: z.enum(SCHEDULE_RUN_OUTCOMES),
  reason: z.string().nullable(),
  late: z.boolean(),
});
export type ScheduleRun = z.infer<typeof ScheduleRun>;
