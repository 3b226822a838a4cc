import type { Clock } from './clock.js';
import type { EventBus } from './events.js';
import type { EngineOptions } from './engine-options.js';
import type { EngineServices } from './operations/types.js';
import type { SecretBox } from './secrets.js';
import type { Logger } from './server/app.js';
import type { Store } from './store/index.js';
import { createToolRuntime } from './tools/deps.js';
import { createAlertService } from './alerts/service.js';
import { createAlertEvaluator } from './alerts/evaluator.js';
import { createSimulationRunner } from './simulations/runner.js';
import { createScheduler } from './schedules/scheduler.js';
import { createAdapters } from './providers/registry.js';
import { createSyncService } from './providers/sync.js';

/** What every service is built from: the open store, its secrets, the clock, the event bus. */
export interface ServiceBase {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  events: EventBus;
  log: Logger;
}

/**
 * The engine's services, wired together: tool runtime, provider sync, alerts, the simulation
 * runner and the scheduler. Nothing runs until `startBackground()`.
 */
export function createServices(options: EngineOptions, base: ServiceBase) {
  const { store, secrets, clock, events, log } = base;
  const logError = (m: string) => log.error(m);
  const llmDefault = options.llmDefault ?? null;
  const simulationDefaults = {
    concurrency: options.simulationConcurrency ?? 4,
    maxTurns: options.maxTurns ?? 20,
    maxDurationMs: options.maxDurationMs ?? 300_000,
  };
  const tools = createToolRuntime({
    store,
    secrets,
    clock,
    retryBaseMs: options.toolRetryBaseMs,
    events,
  });
  const adapters = createAdapters(options.providerRetry);
  const sync = createSyncService({ store, secrets, clock, events, adapters, log: logError });
  const alerts = createAlertService({
    store,
    secrets,
    clock,
    events,
    deliveryRetryBaseMs: options.deliveryRetryBaseMs,
  });
  const evaluator = createAlertEvaluator({ store, clock, events, alerts, log: logError });
  const runner = createSimulationRunner({
    store,
    secrets,
    clock,
    events,
    tools,
    adapters,
    llmDefault,
    defaults: simulationDefaults,
    modelPolicy: options.modelPolicy,
    log: logError,
  });
  const partial = {
    store,
    clock,
    events,
    secrets,
    tools,
    sync,
    alerts,
    evaluator,
    llmDefault,
    runner,
    simulationDefaults,
  };
  const scheduler = createScheduler(partial);
  const services: EngineServices = { ...partial, scheduler };
  return {
    services,
    /** Works the queue, runs schedules, evaluates alerts, syncs agents; answers how to stop the evaluator. */
    startBackground: async (): Promise<() => void> => {
      await runner.start();
      scheduler.start(logError);
      const stopEvaluator = evaluator.start();
      await sync.schedule(options.syncIntervalMinutes ?? 15);
      return stopEvaluator;
    },
  };
}
