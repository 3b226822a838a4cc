import type { Clock } from './clock.js';
import type { EventBus } from './events.js';
import type { EngineOptions } from './engine-options.js';
import type { EngineServices } from './operations/types.js';
import type { SecretBox } from './kernel/secret-box.js';
import type { Logger } from './kernel/logger.js';
import type { Store } from './store/index.js';
import type { Recordings } from './voice/recordings.js';
import { createToolRuntime } from './tools/deps.js';
import { createAlertService } from './alerts/service.js';
import { createAlertEvaluator } from './alerts/evaluator.js';
import { createSimulationRunner } from './simulations/runner.js';
import { createCallEvaluator } from './simulations/call-evaluator.js';
import { watchExperiments } from './regression/experiment-completion.js';
import { relayEvents } from './team/event-relay.js';
import { lead } from './team/leadership.js';
import { createScheduler } from './schedules/scheduler.js';
import { createAdapters } from './providers/registry.js';
import { createSyncService } from './providers/sync.js';
import { createSpeech } from './speech/index.js';
import { createRecordings } from './voice/recordings.js';
import { createDemoHost } from './demo/host.js';
import { createDriftSuite, type DriftSuite } from './regression/drift-suite.js';
import { judgeFromSettings } from './compare/judge-source.js';
import type { ExecutionDeps } from './simulations/start.js';
import { defaultNoiseDir } from './audio/noise-beds.js';
import { speechConnections } from './voice/speech-settings.js';

/** What every service is built from: the open store, its secrets, the clock, the event bus. */
export interface ServiceBase {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  events: EventBus;
  log: Logger;
}

/** What background work uses of the services (experiments compare: store, clock, judge model). */
type BackgroundServices = Pick<
  EngineServices,
  | 'runner'
  | 'callEvaluator'
  | 'scheduler'
  | 'evaluator'
  | 'sync'
  | 'events'
  | 'recordings'
  | 'store'
  | 'clock'
  | 'secrets'
  | 'llmDefault'
>;

/** What an engine runs in the background, and how it starts (see startBackground). */
function backgroundWork(
  options: EngineOptions,
  s: BackgroundServices & {
    log: Logger;
    driftSuite: DriftSuite;
  },
) {
  const { runner, scheduler, evaluator, sync, log } = s;
  const logError = (m: string) => log.error(m);
  /**
   * Works the queue, runs schedules, evaluates alerts, syncs agents; answers how to stop what it
   * started. On a team server, the work that must not run twice (schedules, sync, alerts) runs
   * on one instance at a time, whichever leads; a worker runs simulations only, and a server
   * started with --no-worker leaves them to the workers.
   */
  return async (what: { simulations: boolean; singletons: boolean }) => {
    const stopRelay = await relayAcrossInstances(options, s);
    if (what.simulations) await runner.start();
    // Imported calls are scored where simulations run (a worker, or the engine alone).
    if (what.simulations) await s.callEvaluator.start();
    // Recordings live in each instance's own data dir: each sweeps its own.
    const stopRecordings = sweepRecordings(s.recordings, logError);
    // Experiments are compared as their sides end, on every instance (the stored state: once).
    const stopExperiments = watchExperiments(s, logError);
    const stopSweeping = () => [stopRecordings, stopExperiments].forEach((stop) => stop());
    // Settings changed here or on another instance: each applies what it runs.
    const offSettings = s.events.subscribe((e) => {
      if (e.type !== 'settings.changed') return;
      if (e.data.keys.includes('simulations')) runner.enqueued();
      if (e.data.keys.includes('sync'))
        void sync.rescheduled().catch((err: unknown) => logError(String(err)));
    });
    if (!what.singletons)
      return async () => {
        offSettings();
        stopSweeping();
        await stopRelay();
      };
    let stopEvaluator: (() => void) | null = null;
    let stopDriftSuite: (() => void) | null = null;
    const startSingletons = async () => {
      scheduler.start(logError);
      stopEvaluator = evaluator.start();
      stopDriftSuite = s.driftSuite.start();
      await sync.schedule(options.syncIntervalMinutes ?? 15);
    };
    const stopSingletons = async () => {
      scheduler.stop();
      stopEvaluator?.();
      stopEvaluator = null;
      stopDriftSuite?.();
      stopDriftSuite = null;
      sync.unschedule();
      await evaluator.idle();
      await s.driftSuite.idle();
    };
    if (!options.databaseUrl) {
      await startSingletons();
      return async () => {
        offSettings();
        stopSweeping();
        await stopSingletons();
      };
    }
    const leadership = lead({
      url: options.databaseUrl,
      name: 'callbench-singletons',
      onLead: startSingletons,
      onLose: stopSingletons,
      log: (m) => log.info(m),
      retryMs: options.leaderRetryMs,
    });
    return async () => {
      offSettings();
      stopSweeping();
      await leadership.stop();
      await stopRelay();
    };
  };
}

const HOUR_MS = 3_600_000;

/** Removes expired and orphaned recordings now and every hour; answers how to stop. */
function sweepRecordings(recordings: Recordings, log: (m: string) => void): () => void {
  const sweep = () =>
    void recordings
      .sweep(Date.now())
      .catch((err: unknown) => log(`sweeping recordings failed: ${(err as Error).message}`));
  sweep();
  const timer = setInterval(sweep, HOUR_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * On a team server, engine events reach every instance (LISTEN/NOTIFY): a browser attached to any
 * server sees work any worker does, and a cancel made anywhere stops the simulation at once on the
 * worker that runs it.
 */
async function relayAcrossInstances(
  options: EngineOptions,
  s: Pick<EngineServices, 'runner' | 'events'> & { log: Logger },
): Promise<() => Promise<void>> {
  if (!options.databaseUrl) return async () => {};
  const relay = await relayEvents({
    url: options.databaseUrl,
    events: s.events,
    log: (m) => s.log.info(m),
  });
  const unsubscribe = s.events.subscribe((e) => {
    if (e.type === 'execution.cancelled') s.runner.cancelled(e.data.executionId);
  });
  return async () => {
    unsubscribe();
    await relay.close();
  };
}

/** The simulation pool size and limits where the settings say nothing. */
const simulationDefaultsOf = (options: EngineOptions) => ({
  concurrency: options.simulationConcurrency ?? 4,
  maxTurns: options.maxTurns ?? 20,
  maxDurationMs: options.maxDurationMs ?? 300_000,
});

/** Alerts: the service that records and notifies, and the evaluator that decides when. */
function alertServices(options: EngineOptions, base: ServiceBase) {
  const { store, secrets, clock, events, log } = base;
  const alerts = createAlertService({
    store,
    secrets,
    clock,
    events,
    deliveryRetryBaseMs: options.deliveryRetryBaseMs,
  });
  const evaluator = createAlertEvaluator({
    store,
    clock,
    events,
    alerts,
    log: (m) => log.error(m),
    everyMinute: options.alertEveryMinute,
  });
  return { alerts, evaluator };
}

/** The drift suite: it starts executions as schedules do, and compares as the comparison API does. */
function driftSuiteOf(base: ServiceBase, execution: ExecutionDeps): DriftSuite {
  const { store, clock, events, secrets, log } = base;
  const judge = judgeFromSettings({
    store,
    secrets,
    llmDefault: execution.llmDefault,
    runner: execution.runner,
  });
  return createDriftSuite({
    store,
    clock,
    events,
    execution,
    comparison: { store, clock, judge },
    log: (m) => log.error(m),
  });
}

/**
 * Production monitoring's scorer: imported calls scored on its own scoring thread, never while
 * a sync imports here (a sync that ended lets it claim again, once off the running list).
 */
function callScorer(
  options: EngineOptions,
  base: ServiceBase,
  with_: {
    sync: ReturnType<typeof createSyncService>;
    defaults: ReturnType<typeof simulationDefaultsOf>;
    stopping: AbortSignal;
  },
) {
  const { store, secrets, clock, events, log } = base;
  const callEvaluator = createCallEvaluator({
    store,
    secrets,
    clock,
    events,
    llmDefault: options.llmDefault ?? null,
    modelPolicy: options.modelPolicy,
    defaults: with_.defaults,
    concurrency: options.workerConcurrency,
    leaseMs: options.leaseMs,
    stopping: with_.stopping,
    paused: () => with_.sync.syncing(),
    log: (m) => log.error(m),
  });
  events.subscribe((e) => {
    if (e.type === 'sync.finished') setImmediate(() => callEvaluator.enqueued());
  });
  return callEvaluator;
}

/** Where audio callers' noise beds are, and the threads their frames run on. */
const audioCallOptions = (options: EngineOptions) => ({
  noiseDir: options.noiseDir ?? defaultNoiseDir(),
  audioThreads: options.audioThreads,
});

/**
 * The engine's services, wired together: tool runtime, provider sync, alerts, the simulation
 * runner and the scheduler. Nothing runs until `startBackground()`.
 */
export function createServices(options: EngineOptions, base: ServiceBase) {
  const { store, secrets, clock, events, log } = base;
  const logError = (m: string) => log.error(m);
  const llmDefault = options.llmDefault ?? null;
  const simulationDefaults = simulationDefaultsOf(options);
  const tools = createToolRuntime({
    store,
    secrets,
    clock,
    retryBaseMs: options.toolRetryBaseMs,
    events,
  });
  const adapters = createAdapters(options.providerRetry);
  const speech = createSpeech({ connections: () => speechConnections(store, secrets) });
  const demo = createDemoHost({ store, speech, log: logError });
  const recordings = createRecordings({
    dataDir: options.dataDir,
    store,
    log: logError,
    now: () => clock.now(),
  });
  const sync = createSyncService({
    store,
    secrets,
    clock,
    events,
    adapters,
    log: logError,
    info: (m) => log.info(m),
    evaluationsQueued: () => callEvaluator.enqueued(),
  });
  const { alerts, evaluator } = alertServices(options, base);
  const stopping = new AbortController();
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
    leaseMs: options.leaseMs,
    concurrency: options.workerConcurrency,
    speech,
    recordings,
    demo,
    ...audioCallOptions(options),
    stopping: stopping.signal,
    log: logError,
  });
  const scorer = { sync, defaults: simulationDefaults, stopping: stopping.signal };
  const callEvaluator = callScorer(options, base, scorer);
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
    callEvaluator,
    simulationDefaults,
    speech,
    recordings,
    demo,
  };
  const scheduler = createScheduler(partial);
  const services: EngineServices = { ...partial, scheduler, stopping: stopping.signal };
  const driftSuite = driftSuiteOf(base, partial);
  return {
    services,
    beginStop: () => stopping.abort(),
    startBackground: backgroundWork(options, { ...services, log, driftSuite }),
  };
}
