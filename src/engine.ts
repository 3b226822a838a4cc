import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { systemClock, isoNow, type Clock } from './clock.js';
import { osUserName } from './config.js';
import { EventBus } from './events.js';
import { newId, newSecret } from './ids.js';
import { acquireDataDirLock } from './lock.js';
import { catalogue } from './operations/catalogue.js';
import { createBrowserSessions } from './server/sessions.js';
import { applyNetworkSettings } from './operations/settings.js';
import { createInvoker, type Invoke } from './operations/invoke.js';
import type { Caller, EngineServices } from './operations/types.js';
import { SecretBox } from './secrets.js';
import { buildServer, type Logger } from './server/app.js';
import { createAuthenticator } from './server/auth.js';
import { openDatabase, type Db } from './store/db.js';
import { createDataDir, keepToOwner } from './store/file-modes.js';
import { createStore, type Store } from './store/index.js';
import { migrate } from './store/migrate.js';
import { createToolRuntime } from './tools/deps.js';
import { createAlertService } from './alerts/service.js';
import type { ModelConnection } from './llm/types.js';
import type { ModelPolicy } from './llm/types.js';
import { createSimulationRunner, type SimulationRunner } from './simulations/runner.js';
import { defaultScorecard } from './simulations/default-scorecard.js';
import { createScheduler, type Scheduler } from './schedules/scheduler.js';
import { createAlertEvaluator, type AlertEvaluator } from './alerts/evaluator.js';
import type { RetryPolicy } from './providers/client.js';
import { createAdapters } from './providers/registry.js';
import { createSyncService, type SyncService } from './providers/sync.js';

export interface EngineOptions {
  dataDir: string;
  clock?: Clock;
  /** CALLBENCH_API_KEY: accepted as an API key, never stored. */
  envApiKey?: string;
  /**
   * The one engine on this data dir (takes the lock, bootstraps the first key, runs background
   * work). The CLI's short commands open the store shared, beside a running app.
   */
  exclusive?: boolean;
  log?: Logger;
  /** First delay between tool call retries (doubles each time); tests shorten it. */
  toolRetryBaseMs?: number;
  /** How provider calls are retried (tests shorten the waits). */
  providerRetry?: RetryPolicy;
  /** Minutes between periodic syncs of connected agents (default 15). */
  syncIntervalMinutes?: number;
  /** First delay between notification delivery attempts (doubling); tests shorten it. */
  deliveryRetryBaseMs?: number;
  /** The default language model of every role (serve reads CALLBENCH_LLM_BASE_URL, _API_KEY, _MODEL). */
  llmDefault?: ModelConnection | null;
  /** Simulations run at once (default 4), and the per-simulation limits a scenario may override. */
  simulationConcurrency?: number;
  maxTurns?: number;
  maxDurationMs?: number;
  modelPolicy?: ModelPolicy;
  /** Check every answer against its operation's response schema (tests: undocumented fields fail). */
  checkOutputs?: boolean;
}

export interface StartResult {
  /** Generated on the first start of an empty store; shown once. */
  firstApiKey?: string;
}

const silent: Logger = { info: () => {}, error: () => {} };

export interface Engine {
  readonly dataDir: string;
  readonly events: EventBus;
  readonly store: Store;
  /** The schedule runner (tests tick it after moving the clock). */
  readonly scheduler: Scheduler;
  start(): StartResult;
  invoke(name: string, input: unknown, caller?: Caller): ReturnType<Invoke>;
  /** The local HTTP API; with `ui`, also the operation route, the event stream and the built renderer (browser mode). */
  listen(port: number, host: string, ui?: { rendererDir?: string }): Promise<string>;
  /** Browser mode: a fresh one-time login link (single use, valid 15 minutes). */
  loginUrl(): string;
  /** Stops the HTTP server only (the desktop app's setting turns it off); the engine runs on. */
  closeServer(): Promise<void>;
  /** Bytes of heap the model threads use: the process's own figures leave them out. */
  modelThreadsHeapUsed(): Promise<number>;
  stop(): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silent;
  const events = new EventBus();
  const osUser = osUserName();
  const localCaller: Caller = { kind: 'local', user: { id: `usr_${osUser}`, name: osUser } };
  // Whoever followed a login link acts as the person who started the engine.
  const sessions = createBrowserSessions({
    kind: 'api_key',
    keyId: 'browser_session',
    user: { id: `usr_${osUser}`, name: osUser },
  });
  let baseUrl: string | null = null;
  let db: Db | null = null;
  let store: Store | null = null;
  let invoke: Invoke | null = null;
  let server: FastifyInstance | null = null;
  let releaseLock: (() => void) | null = null;
  let syncService: SyncService | null = null;
  let alertEvaluator: AlertEvaluator | null = null;
  let simulationRunner: SimulationRunner | null = null;
  let schedulerService: Scheduler | null = null;
  let stopEvaluator: (() => void) | null = null;

  const simulationDefaults = {
    concurrency: options.simulationConcurrency ?? 4,
    maxTurns: options.maxTurns ?? 20,
    maxDurationMs: options.maxDurationMs ?? 300_000,
  };
  const started = <T>(value: T | null): T => {
    if (value === null) throw new Error('The engine is not started');
    return value;
  };

  function bootstrap(s: Store, exclusive: boolean): StartResult {
    return s.transaction(() => {
      if (s.workspaces.count() === 0) {
        const ws = s.workspaces.insert({
          id: newId('ws', clock.now()),
          name: 'Default workspace',
          created_at: isoNow(clock),
        });
        s.scorecards.insert(ws.id, defaultScorecard(clock.now(), isoNow(clock)));
      }
      if (!exclusive || s.credentials.countKeys() > 0) return {};
      const secret = newSecret('cbk');
      s.credentials.insertKey({
        id: newId('key', clock.now()),
        label: 'first key',
        secret,
        created_at: isoNow(clock),
      });
      return { firstApiKey: secret };
    });
  }

  return {
    dataDir: options.dataDir,
    events,
    get store() {
      return started(store);
    },
    get scheduler() {
      return started(schedulerService);
    },
    start() {
      createDataDir(options.dataDir);
      const exclusive = options.exclusive ?? true;
      if (exclusive) releaseLock = acquireDataDirLock(options.dataDir);
      try {
        db = openDatabase(join(options.dataDir, 'callbench.db'));
        migrate(db, join(options.dataDir, 'backups'));
        store = createStore(db);
        applyNetworkSettings(store);
        const secrets = SecretBox.forDataDir(options.dataDir, store);
        const tightened = keepToOwner(options.dataDir);
        if (tightened.length)
          log.info(`Made readable by only its owner (they were looser): ${tightened.join(', ')}`);
        const tools = createToolRuntime({
          store,
          secrets,
          clock,
          retryBaseMs: options.toolRetryBaseMs,
          events,
        });
        const adapters = createAdapters(options.providerRetry);
        const sync = createSyncService({
          store,
          secrets,
          clock,
          events,
          adapters,
          log: (m) => log.error(m),
        });
        syncService = sync;
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
        });
        alertEvaluator = evaluator;
        const runner = createSimulationRunner({
          store,
          secrets,
          clock,
          events,
          tools,
          adapters,
          llmDefault: options.llmDefault ?? null,
          defaults: simulationDefaults,
          modelPolicy: options.modelPolicy,
          log: (m) => log.error(m),
        });
        simulationRunner = runner;
        const partial = {
          store,
          clock,
          events,
          secrets,
          tools,
          sync,
          alerts,
          evaluator,
          llmDefault: options.llmDefault ?? null,
          runner,
          simulationDefaults,
        };
        const scheduler = createScheduler(partial);
        schedulerService = scheduler;
        const services: EngineServices = { ...partial, scheduler };
        // Only the one engine on a data dir works the queue; the CLI's short commands never do.
        if (exclusive) {
          runner.start();
          scheduler.start((m) => log.error(m));
        }
        if (exclusive) stopEvaluator = evaluator.start();
        if (exclusive) sync.schedule(options.syncIntervalMinutes ?? 15);
        invoke = createInvoker(catalogue, services, { checkOutputs: options.checkOutputs });
        return bootstrap(store, exclusive);
      } catch (err) {
        db?.close();
        db = null;
        releaseLock?.();
        throw err;
      }
    },
    invoke(name, input, caller = localCaller) {
      return started(invoke)(name, input, caller);
    },
    async listen(port, host, ui) {
      const s = started(store);
      server = buildServer({
        catalogue,
        invoke: started(invoke),
        authenticate: createAuthenticator({
          store: s,
          clock,
          envApiKey: options.envApiKey,
          osUser,
        }),
        host,
        log,
        ui: ui && { ...ui, events, sessions },
      });
      await server.listen({ port, host });
      const address = server.server.address() as { port: number };
      baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      return baseUrl;
    },
    loginUrl() {
      if (!baseUrl) throw new Error('The HTTP server is not listening');
      return `${baseUrl}/?token=${sessions.issue()}`;
    },
    async closeServer() {
      await server?.close();
      server = null;
    },
    async modelThreadsHeapUsed() {
      return (await simulationRunner?.modelThreadsHeapUsed()) ?? 0;
    },
    async stop() {
      // In-flight requests finish before the database closes.
      await server?.close();
      server = null;
      schedulerService?.stop();
      schedulerService = null;
      await simulationRunner?.stop();
      simulationRunner = null;
      await syncService?.stop();
      syncService = null;
      stopEvaluator?.();
      stopEvaluator = null;
      await alertEvaluator?.idle();
      alertEvaluator = null;
      store?.toolCalls.flush();
      db?.close();
      db = null;
      store = null;
      invoke = null;
      releaseLock?.();
      releaseLock = null;
    },
  };
}
