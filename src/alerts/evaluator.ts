import cron from 'node-cron';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events.js';
import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/index.js';
import { durationMs, measureAll, type Measurement } from './measure.js';
import { measureRegressions } from './regression-measure.js';
import { measureProduction } from './production-measure.js';
import type { AlertService, Condition } from './service.js';

const COMPARE: Record<string, (v: number, t: number) => boolean> = {
  less_than: (v, t) => v < t,
  less_than_or_equal: (v, t) => v <= t,
  greater_than: (v, t) => v > t,
  greater_than_or_equal: (v, t) => v >= t,
  equals: (v, t) => v === t,
};

function holds(c: Condition, m: Measurement): boolean {
  if (m.value === null) return false;
  if (c.type === 'agent_config_changed' || c.type === 'agent_regression') return m.value > 0;
  return COMPARE[c.operator ?? 'less_than']!(m.value, c.threshold ?? 0);
}

export interface Change {
  alertId: string;
  state: 'firing' | 'resolved';
  value: number | null;
}

/** How long a round triggered by engine events waits, gathering the events that follow. */
const EVENT_ROUND_DELAY_MS = 100;

export interface EvaluatorDeps {
  store: Store;
  clock: Clock;
  events: EventBus;
  alerts: AlertService;
  log(m: string): void;
  /** Also a round at each minute of the wall clock (default true). */
  everyMinute?: boolean;
}

/** Records an alert's change of state, tells who listens, and notifies on its channels. */
async function change(
  deps: EvaluatorDeps,
  alert: StoredAlert,
  to: { state: Change['state']; m: Measurement; now: number },
): Promise<Change> {
  const { store } = deps;
  const { state, m, now } = to;
  const c = alert.definition.condition;
  const at = new Date(now).toISOString();
  const eventId = await store.transaction(async (tx) => {
    await tx.alerts.setState(alert.id, state, state === 'firing' ? at : undefined);
    return tx.alertEvents.add(
      alert.id,
      {
        state,
        value: m.value,
        threshold: c.threshold ?? null,
        timeWindow: c.timeWindow ?? null,
        at,
      },
      now,
    );
  });
  deps.events.emit(`alert.${state}`, {
    alertId: alert.id,
    name: alert.definition.name,
    value: m.value,
  });
  const deliveries = await deps.alerts.notify(alert, state, m.value, m.detail);
  await store.alertEvents.setDeliveries(eventId, deliveries);
  return { alertId: alert.id, state, value: m.value };
}

/** One round: every active alert measured together, each change recorded and notified. */
async function round(deps: EvaluatorDeps): Promise<Change[]> {
  const { store } = deps;
  const now = deps.clock.now();
  const active = (await store.alerts.list()).filter((a) => a.isActive);
  const measured = await measureAll(store, active, now);
  for (const [id, m] of await measureRegressions(store, active)) measured.set(id, m);
  for (const [id, m] of await measureProduction(store, active, now)) measured.set(id, m);
  const changes: Promise<Change>[] = [];
  for (const alert of active) {
    const c = alert.definition.condition;
    const m = measured.get(alert.id);
    if (!m || m.samples < (c.minSamples ?? 5)) continue;
    if (holds(c, m)) {
      if (alert.state === 'firing') continue;
      const last = await store.alerts.lastFiredAt(alert.id);
      const cooldown = alert.definition.cooldown;
      if (cooldown && last && Date.parse(last) + durationMs(cooldown) > now) continue;
      changes.push(change(deps, alert, { state: 'firing', m, now }));
    } else if (alert.state === 'firing') {
      changes.push(change(deps, alert, { state: 'resolved', m, now }));
    }
  }
  // Channels are slow and independent: one failing never holds up the others, nor the round.
  return Promise.all(changes);
}

/**
 * Evaluates active alerts: ok -> firing -> resolved. A notification goes out on each change only,
 * never once per evaluation; a window with fewer than minSamples (default 5) samples changes
 * nothing; `cooldown` bounds how soon an alert may fire again.
 */
export function createAlertEvaluator(deps: EvaluatorDeps) {
  let running: Promise<Change[]> | null = null;
  let task: { stop(): unknown } | null = null;
  let soon: NodeJS.Timeout | null = null;

  /** A fresh round, after the one under way if any: an answer never describes an older state. */
  async function evaluate(): Promise<Change[]> {
    while (running) await running.catch(() => {});
    running = round(deps).finally(() => {
      running = null;
    });
    return running;
  }

  return {
    evaluate,
    /** Every minute (unless `everyMinute` is false), and soon after an engine event about alerts. */
    start(): () => void {
      if (deps.everyMinute !== false)
        task = cron.schedule(
          '* * * * *',
          () =>
            void evaluate().catch((err) =>
              deps.log(`alert evaluation failed: ${(err as Error).message}`),
            ),
        );
      // A burst of events (an execution of many simulations finishing) makes one round, not one each.
      const off = deps.events.subscribe((e) => {
        const about = [
          'agent.config_changed',
          'simulation.finished',
          'regression.suite_finished',
          'call.evaluated',
        ];
        if (about.includes(e.type) && !soon) {
          soon = setTimeout(() => {
            soon = null;
            void evaluate().catch(() => {});
          }, EVENT_ROUND_DELAY_MS);
        }
      });
      return () => {
        task?.stop();
        off();
        if (soon) clearTimeout(soon);
        soon = null;
      };
    },
    async idle(): Promise<void> {
      while (running) await running.catch(() => {});
    },
  };
}

export type AlertEvaluator = ReturnType<typeof createAlertEvaluator>;
