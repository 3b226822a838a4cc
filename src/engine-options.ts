import type { Clock } from './clock.js';
import type { ModelConnection, ModelPolicy } from './llm/types.js';
import type { RetryPolicy } from './providers/client.js';
import type { Logger } from './kernel/logger.js';
import type { TlsFiles } from './server/app.js';

export interface EngineOptions {
  /** Local files: the SQLite store (unless databaseUrl is set), its backups, the lock, the key. */
  dataDir: string;
  /**
   * A team server: the store on this PostgreSQL database (CALLBENCH_DATABASE_URL or
   * `serve --database`), shared with the other instances.
   */
  databaseUrl?: string;
  /** A team server's secret key (CALLBENCH_SECRET_KEY), the same on every instance. */
  secretKey?: string;
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
  /**
   * False: alerts are evaluated on engine events and when asked, not also at each minute of the
   * wall clock. Tests that move a fake clock and then ask for an evaluation set it, since a
   * minute's round landing between the two would take the change their evaluation expects.
   */
  alertEveryMinute?: boolean;
  /** The default language model of every role (serve reads CALLBENCH_LLM_BASE_URL, _API_KEY, _MODEL). */
  llmDefault?: ModelConnection | null;
  /** Simulations run at once (default 4), and the per-simulation limits a scenario may override. */
  simulationConcurrency?: number;
  maxTurns?: number;
  maxDurationMs?: number;
  modelPolicy?: ModelPolicy;
  /**
   * A worker process of a team server: it runs simulations and nothing else (no first key, no
   * schedules, sync or alert evaluation, no HTTP).
   */
  worker?: boolean;
  /** A worker's pool size (--concurrency): fixed, whatever the shared settings say. */
  workerConcurrency?: number;
  /** Runs simulations (default true); `serve --no-worker` leaves them to the worker processes. */
  runSimulations?: boolean;
  /**
   * A team server's names as its users address it, `name:port` (CALLBENCH_PUBLIC_HOSTS): accepted
   * in Host and Origin beside 127.0.0.1 and localhost.
   */
  publicHosts?: string[];
  /** `serve --tls-cert/--tls-key`: the HTTP API over TLS with this PEM certificate and key. */
  tls?: TlsFiles;
  /**
   * Outbound requests (tools, agents, webhooks, models, speech) refuse loopback, private,
   * link-local and metadata addresses. Default: on for a team server (databaseUrl), off on the
   * desktop and a SQLite serve, where local APIs are what the user means to call.
   */
  outboundGuard?: boolean;
  /** CIDRs and host names the outbound guard lets through (CALLBENCH_OUTBOUND_ALLOW). */
  outboundAllow?: string[];
  /** Team server: how long a claimed simulation's lease holds unless renewed (default 30 s). */
  leaseMs?: number;
  /** Team server: how often an instance that does not lead asks to (default 10 s). */
  leaderRetryMs?: number;
  /** Where the noise beds of audio callers are; default `resources/noise` beside the engine. */
  noiseDir?: string;
  /**
   * Threads the frames of audio calls run on (default 1): their clock is then never held up by
   * the engine's own work. 0 runs them on the engine's thread (the voice benchmark's baseline).
   */
  audioThreads?: number;
  /** Check every answer against its operation's response schema (tests: undocumented fields fail). */
  checkOutputs?: boolean;
  /**
   * Tests: a call on the outer store from inside a transaction fails at once, naming the mistake,
   * instead of waiting for that transaction forever. Costs every promise a little.
   */
  checkTransactions?: boolean;
}
