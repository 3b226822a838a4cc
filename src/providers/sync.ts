import cron from 'node-cron';
import type { Clock } from '../clock.js';
import { isoNow } from '../clock.js';
import type { EventBus } from '../events.js';
import { newId } from '../ids.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { AgentRecord } from '../store/agents.js';
import type { Store } from '../store/index.js';
import { connectError, ProviderError } from './client.js';
import { snapshotChange } from './raw-record.js';
import { CredentialsUnreadable, openCredentials, sealCredentials } from './credentials.js';
import type { ProviderName } from './registry.js';
import type { ConnectionTest } from '../domain/providers.js';
import { reportedCalls } from '../tools/reported.js';
import { queueMonitoredCalls } from './monitoring-sample.js';
import type { AgentSnapshot, NormalizedCall, ProviderAdapter, ProviderContext } from './types.js';

export const FIRST_IMPORT_DAYS = 30;

/**
 * Asks for the next page while the current one is written, so that the provider's answer and our
 * SQLite writes overlap. At most two pages are held at once.
 */
async function* prefetched<T>(pages: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = pages.next();
  for (;;) {
    const current = await next;
    if (current.done) return;
    next = pages.next();
    // A failure of the prefetch surfaces when it is awaited, not as an unhandled rejection.
    next.catch(() => {});
    // One turn of the event loop lets the request leave before the caller's synchronous writes
    // hold the thread; without it the provider only starts on the next page after they end.
    await new Promise((resolve) => setImmediate(resolve));
    yield current.value;
  }
}

export interface SyncDeps {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  events: EventBus;
  adapters: Record<ProviderName, ProviderAdapter>;
  log: (message: string) => void;
  /** What the sync says in passing (its schedule), where the log takes it. */
  info?: (message: string) => void;
  /** Told after a page queued calls for the monitoring's background scorer. */
  evaluationsQueued?: () => void;
}

export interface ConnectInput {
  provider: ProviderName;
  agentId: string;
  apiKey: string;
  baseUrl?: string;
}

type StoreClock = { store: Store; clock: Clock };

/**
 * Stores a snapshot; a changed one (its raw provider record alone included) becomes the next
 * version. Answers the changed paths.
 */
async function recordSnapshot(
  { store, clock }: StoreClock,
  agent: AgentRecord,
  snapshot: AgentSnapshot,
): Promise<string[]> {
  const latest = await store.agents.latestVersion(agent.id);
  const change = latest ? snapshotChange(latest.snapshot, snapshot) : null;
  const paths = change?.paths ?? [];
  if (latest && change?.backfill)
    await store.agents.keepRawRecord(agent.id, latest.version, snapshot);
  if (!latest || paths.length > 0) {
    const added = await store.agents.addVersion(agent.id, {
      version: (latest?.version ?? 0) + 1,
      syncedAt: isoNow(clock),
      changedPaths: paths,
      configuration: snapshot.configuration,
      snapshot,
    });
    // Another server syncing the agent at the same moment recorded this version (and says so).
    if (!added) return [];
  }
  await store.agents.update(agent.id, {
    snapshot,
    name: snapshot.name,
    description: snapshot.description,
    updated_at: isoNow(clock),
  });
  return paths;
}

/**
 * Stores one page of imported calls (the caller runs it in a transaction): the calls not seen
 * before, their provider errors, and their tool calls as production traffic of the agent.
 */
async function storeCallPage(
  { store, clock }: StoreClock,
  agentId: string,
  page: NormalizedCall[],
): Promise<number> {
  const fresh = await store.calls.upsert(agentId, page, clock.now());
  const at = isoNow(clock);
  const logRow = reportedCalls(store, 'production');
  for (const { id, call } of fresh) {
    if (call.providerError)
      await store.calls.addError(agentId, {
        at,
        kind: 'call_error',
        message: `Call ended in a provider error: ${call.providerError}`,
        callId: id,
      });
    const started = call.startedAt ? Date.parse(call.startedAt) : null;
    for (const tc of call.toolCalls) {
      await store.toolCalls.insert(await logRow(tc, agentId, started ?? clock.now()));
      if (tc.success === false)
        await store.calls.addError(agentId, {
          at,
          kind: 'tool_error',
          message: `Tool ${tc.name} failed during a call`,
          callId: id,
        });
    }
  }
  await store.toolCalls.flush();
  return queueMonitoredCalls(store, agentId, fresh, at);
}

/** Stores a connection: a known agent gets the new credentials, an unknown one is created. */
async function saveConnection(
  { store, clock }: StoreClock,
  input: ConnectInput,
  snapshot: AgentSnapshot,
  credentials: AgentRecord['credentials'],
): Promise<AgentRecord> {
  const existing = await store.agents.findByProvider(input.provider, input.agentId);
  const now = isoNow(clock);
  if (existing) {
    await store.agents.update(existing.id, {
      credentials,
      status: 'active',
      syncStatus: 'idle',
      syncError: null,
      updated_at: now,
    });
    await recordSnapshot({ store, clock }, (await store.agents.get(existing.id))!, snapshot);
    return (await store.agents.get(existing.id))!;
  }
  const created = await store.agents.insert({
    id: newId('agt', clock.now()),
    provider: input.provider,
    providerAgentId: input.agentId,
    name: snapshot.name,
    status: 'active',
    description: snapshot.description,
    snapshot,
    overrides: {},
    channel: null,
    credentials,
    tags: snapshot.tags,
    syncStatus: 'running',
    lastSyncedAt: null,
    syncError: null,
    callsCursorMs: null,
    created_at: now,
    updated_at: now,
  });
  await recordSnapshot({ store, clock }, created, snapshot);
  return (await store.agents.get(created.id))!;
}

/** Imports the agent's calls since its cursor, a page per transaction; the cursor moves at the end. */
async function importCalls(
  deps: SyncDeps,
  agent: AgentRecord,
  ctx: ProviderContext,
  stopping: () => boolean,
): Promise<void> {
  const { store, clock } = deps;
  const adapter = deps.adapters[agent.provider as ProviderName];
  const since = agent.callsCursorMs ?? clock.now() - FIRST_IMPORT_DAYS * 86_400_000;
  let newest = since;
  for await (const page of prefetched(adapter.listCalls(ctx, agent.providerAgentId, since))) {
    if (stopping()) throw new ProviderError('unavailable', 'the engine is stopping');
    const queued = await store.transaction((tx) =>
      storeCallPage({ store: tx, clock }, agent.id, page),
    );
    if (queued) deps.evaluationsQueued?.();
    for (const c of page) if (c.startedAt) newest = Math.max(newest, Date.parse(c.startedAt));
  }
  // The cursor moves only once every page is in: an interrupted import starts over from the same
  // point, and the provider call ids keep it from duplicating what already arrived.
  await store.agents.update(agent.id, { callsCursorMs: newest });
}

/** A failed sync: the agent says why (a refused key needs new credentials), and so do the errors. */
async function recordSyncFailure(deps: SyncDeps, agentId: string, err: unknown): Promise<void> {
  if (!(err instanceof ProviderError))
    deps.log(`sync of ${agentId} failed unexpectedly: ${(err as Error).message}`);
  const message = err instanceof Error ? err.message : String(err);
  const status =
    err instanceof ProviderError && err.kind === 'auth' ? 'needs_credentials' : 'failed';
  await deps.store.agents.update(agentId, { syncStatus: status, syncError: message });
  await deps.store.calls.addError(agentId, {
    at: isoNow(deps.clock),
    kind: 'sync_error',
    message: `Sync failed: ${message}`,
  });
  deps.events.emit('sync.finished', { agentId, ok: false, error: message });
}

/** Asks the provider for the agent once: are the key and the agent id good right now? */
async function testProviderConnection(
  adapters: SyncDeps['adapters'],
  agent: AgentRecord,
  ctx: ProviderContext | null,
): Promise<ConnectionTest> {
  const began = Date.now();
  if (!ctx) return { ok: false, latencyMs: 0, message: 'the agent has no stored credentials' };
  try {
    await adapters[agent.provider as ProviderName].fetchAgent(ctx, agent.providerAgentId);
    return { ok: true, latencyMs: Date.now() - began, message: `${agent.provider} answered` };
  } catch (err) {
    return { ok: false, latencyMs: Date.now() - began, message: (err as Error).message };
  }
}

/** Fetches the agent (so that a bad key or id is answered at once) and stores the connection. */
async function connectAgent(
  deps: SyncDeps,
  input: ConnectInput,
): Promise<{ agent: AgentRecord; created: boolean }> {
  const { store, clock } = deps;
  const adapter = deps.adapters[input.provider];
  const ctx: ProviderContext = {
    apiKey: input.apiKey,
    baseUrl: input.baseUrl ?? adapter.defaultBaseUrl,
  };
  let snapshot: AgentSnapshot;
  try {
    snapshot = await adapter.fetchAgent(ctx, input.agentId);
  } catch (err) {
    throw connectError(err, input.provider);
  }
  const credentials = sealCredentials(deps.secrets, {
    apiKey: input.apiKey,
    baseUrl: input.baseUrl,
  });
  const existing = await store.agents.findByProvider(input.provider, input.agentId);
  const agent = await store.transaction((tx) =>
    saveConnection({ store: tx, clock }, input, snapshot, credentials),
  );
  return { agent, created: !existing };
}

/** How to reach the agent's provider, or null (no key stored, or an agent of our own). */
function providerContext(deps: SyncDeps, agent: AgentRecord): ProviderContext | null {
  const creds = openCredentials(deps.secrets, agent);
  const adapter = deps.adapters[agent.provider as ProviderName] as ProviderAdapter | undefined;
  if (!creds?.apiKey || !adapter) return null;
  return { apiKey: creds.apiKey, baseUrl: creds.baseUrl ?? adapter.defaultBaseUrl };
}

/** The context to sync with; a credential that no longer opens marks the agent instead. */
async function contextToSync(deps: SyncDeps, agent: AgentRecord): Promise<ProviderContext | null> {
  try {
    return providerContext(deps, agent);
  } catch (err) {
    if (!(err instanceof CredentialsUnreadable)) throw err;
    // One damaged secret costs this agent its sync, never the engine.
    await deps.store.agents.update(agent.id, {
      syncStatus: 'needs_credentials',
      syncError: err.message,
    });
    deps.events.emit('sync.finished', { agentId: agent.id, ok: false, error: err.message });
    return null;
  }
}

/** One sync of one agent: its configuration (a change is a new version), then its new calls. */
async function runSync(deps: SyncDeps, agentId: string, stopping: () => boolean): Promise<void> {
  const { store, clock, events } = deps;
  const agent = await store.agents.get(agentId);
  if (!agent || agent.status === 'disconnected') return;
  const ctx = await contextToSync(deps, agent);
  if (!ctx) return;
  await store.agents.update(agentId, { syncStatus: 'running', syncError: null });
  events.emit('sync.started', { agentId });
  try {
    const snapshot = await deps.adapters[agent.provider as ProviderName].fetchAgent(
      ctx,
      agent.providerAgentId,
    );
    const paths = await store.transaction((tx) =>
      recordSnapshot({ store: tx, clock }, agent, snapshot),
    );
    if (paths.length) events.emit('agent.config_changed', { agentId, changedPaths: paths });
    await importCalls(deps, (await store.agents.get(agentId))!, ctx, stopping);
    await store.agents.update(agentId, {
      syncStatus: 'idle',
      lastSyncedAt: isoNow(clock),
      syncError: null,
    });
    events.emit('sync.finished', { agentId, ok: true });
  } catch (err) {
    if (!stopping()) await recordSyncFailure(deps, agentId, err);
    else if (!(err instanceof ProviderError))
      deps.log(`sync of ${agentId} failed unexpectedly: ${(err as Error).message}`);
  }
}

/**
 * Keeps connected agents in step with their providers: configuration snapshots (a new version,
 * and an `agent.config_changed` event, whenever it changes) and call history, imported page by
 * page, each page in one transaction, so that a failure leaves the store as before that page.
 */
export function createSyncService(deps: SyncDeps) {
  const { store } = deps;
  const running = new Map<string, Promise<void>>();
  let task: { stop(): unknown } | null = null;
  let defaultMinutes = 15;
  let scheduledEvery = 15;
  let stopping = false;

  const contextOf = (agent: AgentRecord) => providerContext(deps, agent);
  const isStopping = () => stopping;

  function sync(agentId: string): Promise<void> {
    const current = running.get(agentId);
    if (current) return current;
    const run = runSync(deps, agentId, isStopping)
      .catch((err: unknown) =>
        deps.log(`sync of ${agentId} stopped: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => running.delete(agentId));
    running.set(agentId, run);
    return run;
  }

  const intervalMinutes = async (): Promise<number> =>
    (await store.settings.get<{ intervalMinutes?: number }>('sync'))?.intervalMinutes ??
    defaultMinutes;

  /**
   * Every agent that can sync, every `minutes` minutes (node-cron), until stop(). The stored
   * setting (PATCH /v1/settings {sync}) wins over `minutes`; a later change reschedules.
   */
  async function schedule(minutes: number): Promise<void> {
    defaultMinutes = minutes;
    const wanted = await intervalMinutes();
    if (stopping) return;
    const was = task ? scheduledEvery : null;
    task?.stop();
    const every = Number.isFinite(wanted) ? Math.max(1, Math.min(59, Math.round(wanted))) : 15;
    task = cron.schedule(`*/${every} * * * *`, () => void syncAll());
    scheduledEvery = every;
    // Said when a running schedule changes (a start is quiet).
    if (was !== null && was !== every) deps.info?.(`agents sync every ${every} minutes`);
  }

  async function syncAll(): Promise<void> {
    for (const agent of await store.agents.list()) {
      if (
        agent.status === 'active' &&
        !agent.parentId && // a variant follows its parent's syncs (read through the parent)
        agent.provider !== 'http' &&
        agent.provider !== 'demo' &&
        agent.syncStatus !== 'needs_credentials'
      )
        void sync(agent.id);
    }
  }

  return {
    sync,
    /** How to reach the agent's provider, or null (disconnected, or an agent of our own). */
    contextOf,
    /** Asks the provider for the agent once: are the key and the agent id good right now? */
    testProvider: (agent: AgentRecord): Promise<ConnectionTest> =>
      testProviderConnection(deps.adapters, agent, contextOf(agent)),
    /** Fetches the agent (so that a bad key or id is answered at once), stores it, imports in the background. */
    async connect(input: ConnectInput): Promise<{ agent: AgentRecord; created: boolean }> {
      const connected = await connectAgent(deps, input);
      void sync(connected.agent.id);
      return { agent: (await store.agents.get(connected.agent.id))!, created: connected.created };
    },
    schedule,
    /** Applies a changed interval setting, when this engine runs the periodic sync at all. */
    async rescheduled(): Promise<void> {
      if (task && !stopping) await schedule(defaultMinutes);
    },
    intervalMinutes,
    isRunning: (agentId: string) => running.has(agentId),
    /** Whether any sync runs here now (the monitoring's scorer waits for it, see call-evaluator). */
    syncing: () => running.size > 0,
    async idle(): Promise<void> {
      while (running.size) await Promise.allSettled([...running.values()]);
    },
    /** Ends the periodic syncs (another instance now runs them); asked syncs still run. */
    unschedule(): void {
      task?.stop();
      task = null;
    },
    async stop(): Promise<void> {
      stopping = true;
      task?.stop();
      await Promise.allSettled([...running.values()]);
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
