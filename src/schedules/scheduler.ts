import cron from 'node-cron';
import { isoNow } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { EventBus } from '../events.js';
import { startExecution, type ExecutionDeps } from '../simulations/start.js';
import type { ScheduleRun } from '../store/schedules.js';
import { cronFor, nextSlot, parseEndCondition } from './periodicity.js';

type Services = ExecutionDeps & { events: EventBus };

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'skipped']);
/** A run this long after its slot was missed (the engine was stopped or asleep). */
const LATE_AFTER_MS = 60_000;

/**
 * Runs active schedules. node-cron wakes it every minute; what is due is read from the injected
 * clock, so tests move time instead of waiting. A schedule that missed slots while the engine was
 * stopped or asleep runs once to catch up, marked late; a slot whose previous execution is still
 * running is skipped.
 */
type Due = Awaited<ReturnType<Services['store']['schedules']['due']>>[number];
type EndCondition = ReturnType<typeof parseEndCondition>;

/** Starts the schedule's scenario; an execution refused to start is a run that says why. */
async function startScheduled(
  services: Services,
  workspaceId: string,
  scenarioId: string,
  maxCostUsd: number | null = null,
): Promise<{ executionId: string | null; outcome: ScheduleRun['outcome']; reason: string | null }> {
  try {
    const execution = await startExecution(services, workspaceId, scenarioId, {
      variables: {},
      runs: 1,
      // The schedule's cap holds on every run it starts.
      ...(maxCostUsd === null ? {} : { maxCostUsd }),
    });
    return { executionId: execution.id, outcome: 'started', reason: null };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { executionId: null, outcome: 'failed_to_start', reason: err.message };
  }
}

/** The schedule's next slot after a run, or why it ends (after:N reached, no slot before until). */
function nextAfterRun(
  s: Due,
  end: EndCondition,
  progress: { now: number; scheduledRuns: number },
): { next: string | null; endedReason: string | null } {
  if (!('error' in end) && end.kind === 'after' && progress.scheduledRuns >= end.runs)
    return { next: null, endedReason: `ended after ${end.runs} scheduled run(s)` };
  const rule = cronFor(s.periodicity, { strictSteps: false });
  const next = 'cron' in rule ? nextSlot(rule.cron, s.timezone, new Date(progress.now)) : null;
  if (next && !('error' in end) && end.kind === 'until' && Date.parse(next) > end.at.getTime())
    return {
      next: null,
      endedReason: `ended: no slot before the until date ${end.at.toISOString()}`,
    };
  return { next, endedReason: null };
}

/** Runs one due schedule (skipped while its previous execution runs) and moves it on. */
async function runDue(services: Services, s: Due, now: number): Promise<ScheduleRun | null> {
  const { store, clock } = services;
  const at = isoNow(clock);
  const end = parseEndCondition(s.periodEndCondition);
  if (!('error' in end) && end.kind === 'until' && end.at.getTime() < Date.parse(s.nextRun!)) {
    await store.schedules.end(s.id, `ended: the until date ${end.at.toISOString()} has passed`, at);
    return null;
  }
  const previous = await store.schedules.lastExecution(s.id);
  const running = previous ? await store.simulations.execution(s.workspaceId, previous) : undefined;
  const result =
    running && !TERMINAL.has(running.status)
      ? {
          executionId: null,
          outcome: 'skipped' as const,
          reason: `the previous execution ${previous} is still running`,
        }
      : await startScheduled(services, s.workspaceId, s.scenarioId, s.maxCostUsd);
  // The run and the schedule's move to its next slot land together: a crash between them would
  // leave a recorded run whose slot is still due, and the next tick would run it again.
  const run = await store.transaction(async (tx) => {
    const added = await tx.schedules.addRun({
      id: newId('run', now),
      scheduleId: s.id,
      scheduledFor: s.nextRun,
      startedAt: at,
      trigger: 'schedule',
      late: now - Date.parse(s.nextRun!) > LATE_AFTER_MS,
      ...result,
    });
    const scheduledRuns = s.scheduledRuns + (added.outcome === 'started' ? 1 : 0);
    const { next, endedReason } = nextAfterRun(s, end, { now, scheduledRuns });
    await tx.schedules.advance(s.id, {
      lastRun: at,
      nextRun: next,
      scheduledRuns,
      isActive: endedReason === null,
      endedReason,
      at,
    });
    return added;
  });
  services.events.emit('schedule.ran', {
    scheduleId: s.id,
    outcome: run.outcome,
    executionId: run.executionId,
  });
  return run;
}

export function createScheduler(services: Services) {
  const { store, clock } = services;
  let task: { stop(): unknown } | null = null;

  // Ticks run one after another: two at once would both find the same schedule due.
  let ticking: Promise<unknown> = Promise.resolve();
  function tick(): Promise<ScheduleRun[]> {
    const run = ticking.then(async () => {
      const now = clock.now();
      const runs: ScheduleRun[] = [];
      for (const s of await store.schedules.due(isoNow(clock))) {
        const ran = await runDue(services, s, now);
        if (ran) runs.push(ran);
      }
      return runs;
    });
    ticking = run.catch(() => {});
    return run;
  }

  return {
    tick,
    /** A run by hand: not counted towards after:N, and it leaves nextRun alone. */
    async runNow(
      workspaceId: string,
      scheduleId: string,
      scenarioId: string,
    ): Promise<ScheduleRun> {
      const cap = (await store.schedules.get(workspaceId, scheduleId))?.maxCostUsd ?? null;
      const result = await startScheduled(services, workspaceId, scenarioId, cap);
      const at = isoNow(clock);
      return store.transaction(async (tx) => {
        await tx.schedules.ranAt(scheduleId, at);
        return tx.schedules.addRun({
          id: newId('run', clock.now()),
          scheduleId,
          scheduledFor: null,
          startedAt: at,
          trigger: 'manual',
          late: false,
          ...result,
        });
      });
    },
    start(log: (m: string) => void): void {
      const safeTick = () => {
        tick().catch((err: unknown) => log(`schedules: ${(err as Error).message}`));
      };
      safeTick(); // catch up at once after a stop
      task = cron.schedule('* * * * *', safeTick);
    },
    stop(): void {
      task?.stop();
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
