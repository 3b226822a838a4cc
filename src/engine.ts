import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from './clock.js';
import { osUserName } from './config.js';
import { EventBus } from './events.js';
import { acquireDataDirLock } from './lock.js';
import { guardOutboundFor } from './net/guard.js';
import { catalogue } from './operations/catalogue.js';
import { createBrowserSessions } from './server/sessions.js';
import { applyNetworkSettings } from './operations/settings.js';
import { createInvoker, type Invoke } from './operations/invoke.js';
import type { Caller, EngineServices } from './operations/types.js';
import type { SecretBox } from './kernel/secret-box.js';
import { dataDirSecretBox, teamSecretBox } from './secrets.js';
import type { Logger } from './kernel/logger.js';
import { buildServer } from './server/app.js';
import { ENV_KEY_ID, createAuthenticator, createKeyCallers } from './server/auth.js';
import { AppError } from './errors.js';
import { createDataDir, keepToOwner } from './store/file-modes.js';
import type { Store } from './store/index.js';
import { openStore } from './store/open.js';
import { redactedUrl } from './store/sql/postgres-errors.js';
import { bootstrap, type StartResult } from './engine-bootstrap.js';
import type { Scheduler } from './schedules/scheduler.js';
import { createServices } from './engine-services.js';
import type { AudioThreads } from './voice/audio-threads.js';
import type { EngineOptions } from './engine-options.js';
import { closeCompareThread } from './compare/compare-thread.js';

export type { EngineOptions } from './engine-options.js';

export type { StartResult } from './engine-bootstrap.js';

const silent: Logger = { info: () => {}, error: () => {} };

export interface Engine {
  readonly dataDir: string;
  /** Where the store is, as a log line says it (a database URL without its password). */
  readonly storeDescription: string;
  readonly events: EventBus;
  readonly store: Store;
  /** The schedule runner (tests tick it after moving the clock). */
  readonly scheduler: Scheduler;
  start(): Promise<StartResult>;
  invoke(name: string, input: unknown, caller?: Caller): ReturnType<Invoke>;
  /** The local HTTP API; with `ui`, also the operation route, the event stream and the built renderer (browser mode). */
  listen(port: number, host: string, ui?: { rendererDir?: string }): Promise<string>;
  /**
   * Browser mode: a fresh one-time login link (single use, valid 15 minutes) whose session acts
   * for CALLBENCH_API_KEY when set, else for the oldest API key not revoked (the first key).
   */
  loginUrl(): Promise<string>;
  /** Stops the HTTP server only (the desktop app's setting turns it off); the engine runs on. */
  closeServer(): Promise<void>;
  /** Bytes of heap the model and scoring threads use: the process's own figures leave them out. */
  modelThreadsHeapUsed(): Promise<number>;
  /**
   * The threads audio calls' frames run on: their memory (the process's own figures leave it out)
   * and, for tests, their workers. Null when stopped, or with `audioThreads: 0`.
   */
  audioThreads(): AudioThreads | null;
  /** Simulations this engine runs now: what a stop waits for (0 when stopped). */
  simulationsInFlight(): number;
  stop(): Promise<void>;
}

/** What a started engine holds; null before start and after stop. */
interface Running {
  store: Store;
  invoke: Invoke;
  services: EngineServices;
  /** Stops the schedules, sync and alert evaluation (and their leadership on a team server). */
  stopBackground: (() => Promise<void>) | null;
  /** Tells the services a stop has begun (services.stopping). */
  beginStop: () => void;
  releaseLock: (() => void) | null;
  /** Lifts the outbound guard this engine put in force (a team server's). */
  liftGuard: (() => void) | null;
}

/** The data dir's store: opened, migrated, its key checked, its files kept to their owner. */
async function prepareStore(
  options: EngineOptions,
  log: Logger,
): Promise<{ store: Store; secrets: SecretBox }> {
  const { dataDir } = options;
  const store = await openStore({
    dataDir,
    databaseUrl: options.databaseUrl,
    checkTransactions: options.checkTransactions,
    onIdleError: (err) =>
      log.error('A database connection broke while idle; the next query opens another', err),
  });
  try {
    await applyNetworkSettings(store);
    const secrets = options.databaseUrl
      ? await teamSecretBox(options.secretKey, store)
      : await dataDirSecretBox(dataDir, store);
    const tightened = keepToOwner(dataDir);
    if (tightened.length)
      log.info(`Made readable by only its owner (they were looser): ${tightened.join(', ')}`);
    return { store, secrets };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * How long a stop lets open requests finish before it drops their connections: a client that
 * holds one open (an event stream a browser did not close, a request stuck upstream) must not
 * keep the process from stopping.
 */
const SERVER_CLOSE_GRACE_MS = 1_500;

async function closeWithin(server: FastifyInstance | null, graceMs: number): Promise<void> {
  if (!server) return;
  const force = setTimeout(() => server.server.closeAllConnections(), graceMs);
  try {
    await server.close();
  } finally {
    clearTimeout(force);
  }
}

/** Stops what a started engine runs, in order: background work first, the database last. */
async function stopRunning(r: Running): Promise<void> {
  await r.stopBackground?.();
  // Before the runner: the evaluations' judges run on its model threads.
  await r.services.callEvaluator.stop();
  await r.services.runner.stop();
  await r.services.demo.close();
  await r.services.speech.close();
  await r.services.sync.stop();
  await closeCompareThread();
  await r.store.close();
  r.releaseLock?.();
  r.liftGuard?.();
}

/** Who the engine acts for locally: the OS user. */
function localIdentity() {
  const osUser = osUserName();
  const localCaller: Caller = { kind: 'local', user: { id: `usr_${osUser}`, name: osUser } };
  return { osUser, localCaller };
}

const urlOf = (host: string, port: number, tls: boolean): string =>
  `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** The key the login link printed at start acts for: CALLBENCH_API_KEY, else the first key. */
async function startKeyId(store: Store, envApiKey: string | undefined): Promise<string> {
  if (envApiKey) return ENV_KEY_ID;
  const first = (await store.credentials.listKeys()).find((k) => !k.revoked_at);
  if (!first)
    throw new AppError(
      'no_api_key',
      409,
      'Every API key is revoked: create one (callbench keys create), then ask POST /v1/login-links for a login link',
    );
  return first.id;
}

/** Heap the model threads and the call scorer's threads use (the process's figures leave them out). */
async function threadsHeapUsed(services: EngineServices): Promise<number> {
  const [models, scoring] = await Promise.all([
    services.runner.modelThreadsHeapUsed(),
    services.callEvaluator.threadsHeapUsed(),
  ]);
  return models + scoring;
}

/**
 * Opens the data dir (locked when exclusive), its store and services; when exclusive, starts the
 * background work. A failure leaves nothing open.
 */
async function openEngine(
  options: EngineOptions,
  base: { clock: Clock; events: EventBus; log: Logger },
): Promise<{ running: Running; result: StartResult }> {
  const { clock, events, log } = base;
  createDataDir(options.dataDir);
  const exclusive = options.exclusive ?? true;
  // The data dir holds a desktop's store: one engine at a time. A team server's store is the
  // database, shared by every instance (workers on one machine may share a data dir).
  const releaseLock =
    exclusive && !options.databaseUrl ? acquireDataDirLock(options.dataDir) : null;
  let store: Store | null = null;
  let liftGuard: (() => void) | null = null;
  try {
    // In force before anything that may call out starts (sync, schedules, the queue).
    liftGuard = guardOutboundFor(options);
    const prepared = await prepareStore(options, log);
    store = prepared.store;
    const { secrets } = prepared;
    const { services, startBackground, beginStop } = createServices(options, {
      store,
      secrets,
      clock,
      events,
      log,
    });
    const invoke = createInvoker(catalogue, services, { checkOutputs: options.checkOutputs });
    // A worker never makes the first key: whoever serves the API shows it.
    const result = await bootstrap(store, exclusive && !options.worker, clock);
    // Only the one engine on a data dir works the queue; the CLI's short commands never do.
    const stopBackground = exclusive
      ? await startBackground({
          simulations: options.runSimulations !== false,
          singletons: !options.worker,
        })
      : null;
    return {
      running: { store, invoke, services, stopBackground, beginStop, releaseLock, liftGuard },
      result,
    };
  } catch (err) {
    await store?.close();
    releaseLock?.();
    liftGuard?.();
    throw err;
  }
}

export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silent;
  const events = new EventBus();
  const { osUser, localCaller } = localIdentity();
  // A session acts for the key that made its link, as long as that key is valid.
  const sessions = createBrowserSessions({
    clock,
    callerOfKey: (keyId) =>
      createKeyCallers({ store: started().store, envApiKey: options.envApiKey, osUser })(keyId),
  });
  let baseUrl: string | null = null;
  let server: FastifyInstance | null = null;
  let running: Running | null = null;
  const started = (): Running => {
    if (running === null) throw new Error('The engine is not started');
    return running;
  };

  return {
    dataDir: options.dataDir,
    storeDescription: options.databaseUrl
      ? `team database ${redactedUrl(options.databaseUrl)}, local files in ${options.dataDir}`
      : `data in ${options.dataDir}`,
    events,
    get store() {
      return started().store;
    },
    get scheduler() {
      return started().services.scheduler;
    },
    async start() {
      const opened = await openEngine(options, { clock, events, log });
      running = opened.running;
      return opened.result;
    },
    invoke(name, input, caller = localCaller) {
      return started().invoke(name, input, caller);
    },
    async listen(port, host, ui) {
      const { store, invoke } = started();
      server = buildServer({
        catalogue,
        invoke,
        authenticate: createAuthenticator({ store, clock, envApiKey: options.envApiKey, osUser }),
        host,
        publicHosts: options.publicHosts,
        log,
        ui: ui && { ...ui, events, sessions },
        tls: options.tls,
      });
      await server.listen({ port, host });
      const { port: bound } = server.server.address() as { port: number };
      return (baseUrl = urlOf(host, bound, Boolean(options.tls)));
    },
    async loginUrl() {
      if (!baseUrl) throw new Error('The HTTP server is not listening');
      const keyId = await startKeyId(started().store, options.envApiKey);
      return `${baseUrl}/?token=${sessions.issue(keyId)}`;
    },
    async closeServer() {
      await server?.close();
      server = null;
    },
    async modelThreadsHeapUsed() {
      return running ? threadsHeapUsed(running.services) : 0;
    },
    audioThreads: () => running?.services.runner.audioThreads ?? null,
    simulationsInFlight() {
      return running?.services.runner.inFlight() ?? 0;
    },
    async stop() {
      // In-flight requests finish before the database closes; long polls answer now.
      running?.beginStop();
      await closeWithin(server, SERVER_CLOSE_GRACE_MS);
      server = null;
      const r = running;
      running = null;
      if (r) await stopRunning(r);
    },
  };
}
