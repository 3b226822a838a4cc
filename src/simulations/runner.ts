import type { ConnectionTest } from '../domain/providers.js';
import type { Clock } from '../clock.js';
import { isoNow } from '../clock.js';
import type { EventBus } from '../events.js';
import { createModelThreads } from '../llm/model-threads.js';
import { connectionsFor } from '../llm/settings.js';
import {
  DEFAULT_MODEL_POLICY,
  emptyUsage,
  type ModelClient,
  type ModelConnection,
  type ModelPolicy,
} from '../llm/types.js';
import { effectiveConfiguration } from '../providers/view.js';
import { agentInExecution } from './candidate-configuration.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { Store } from '../store/index.js';
import type { EndedHere, Simulation } from '../store/simulations.js';
import { reportedCalls } from '../tools/reported.js';
import type { RuntimeDeps } from '../tools/types.js';
import { converse, Interrupted } from '../conversation/conversation.js';
import { modelJudge } from './judge.js';
import { scriptReferences } from './judge-transcript.js';
import { replicaAgent } from './replica.js';
import { createCancellations } from './cancellations.js';
import { createBackoff } from './backoff.js';
import { createLeases, type Leases } from './leases.js';
import { chatAgent, type AgentUnderTest } from '../conversation/agent-under-test.js';
import { simulationSettings, type SimulationSettings } from './settings.js';
import { openAgentChat } from '../providers/agent-chat.js';
import type { ProviderName } from '../providers/registry.js';
import type { ProviderAdapter } from '../providers/types.js';
import { metricsFor, scoreConversation, type MetricResult } from './scoring.js';
import type { Speech } from '../speech/index.js';
import type { Recordings } from '../voice/recordings.js';
import type { AudioOutcome } from '../voice/types.js';
import type { AudioSummary } from '../domain/audio.js';
import type { AgentRecord } from '../store/agents.js';
import { createAudioThreads, type AudioThreads } from '../voice/audio-threads.js';
import { runAudioConversation } from '../voice/run-audio.js';
import { demoReach, type DemoHost } from '../demo/host.js';
import { isDatabaseOutage } from '../store/sql/postgres-errors.js';
import { simulationSpending, type SimulationSpending } from './usage-ledger.js';
import { guardSpending } from './cost-guard.js';
import { pricesOf, usageCost } from './pricing.js';
import type { Scorecard } from '../store/scorecards.js';
import { identityAsRun } from './identity-at-run.js';

export interface RunnerDeps {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  events: EventBus;
  tools: RuntimeDeps;
  adapters: Record<ProviderName, ProviderAdapter>;
  llmDefault: ModelConnection | null;
  /** Used where the settings (PATCH /v1/settings {simulations}) say nothing. */
  defaults: SimulationSettings;
  modelPolicy?: ModelPolicy;
  /** How long a claimed simulation's lease holds without renewal (servers sharing a database). */
  leaseMs?: number;
  /** This process's pool size, whatever the settings say (a team server worker's --concurrency). */
  concurrency?: number;
  /** Voices of audio simulations, and speech-to-text where an audio line carries no text. */
  speech: Speech;
  /** Where audio calls are recorded. */
  recordings: Recordings;
  /** The built-in demo agent's server: where a demo agent is reached. */
  demo: DemoHost;
  /** Where the noise beds of audio callers are. */
  noiseDir: string;
  /**
   * Threads the frames of audio calls run on (default 1); 0: on the engine's thread, as before
   * they had threads of their own (the voice benchmark's baseline).
   */
  audioThreads?: number;
  /**
   * Aborted as the engine begins to stop (before `stop()`): turns in flight end at once, and
   * their simulations are left running, to run again at the next start.
   */
  stopping: AbortSignal;
  log: (message: string) => void;
}

/**
 * What a simulation runs with, as stored now; an error when one of them was deleted since. Its
 * variables are its execution's, resolved once as it was queued (start.ts), whatever the scenario
 * declares by now.
 */
async function inputsOf(store: Store, sim: Simulation & { workspace_id: string }) {
  const scenario = await store.scenarios.get(sim.workspace_id, sim.scenario_id);
  const persona = await store.personas.profile(sim.workspace_id, sim.persona_id ?? '');
  const stored = await store.agents.get(sim.agent_id ?? '');
  // An experiment's candidate runs its agent with the experiment's configuration on top.
  const agent = stored && (await agentInExecution(store, sim.execution_id, stored));
  if (!scenario || !persona || !agent)
    throw new Error('its scenario, persona or agent was deleted');
  const variables = (await store.simulations.variablesOf(sim.execution_id)) ?? {};
  return { scenario, persona, agent, variables };
}

type Finished = Parameters<Store['simulations']['finish']>[1];
/** How a simulation ended: its status and whatever it got to (turns, scores, an error). */
type Ending = Partial<Finished> & { status: Simulation['status'] };

/**
 * Stores how a simulation ended (what it did not get to stays empty) and tells who listens.
 * `began` times it; `spending` is what it spent, even when it ended in error. One its cost cap
 * stopped is skipped, whatever it ended as (stoppedByCap).
 */
async function finishSimulation(
  deps: RunnerDeps,
  sim: Simulation,
  ran: {
    began: number;
    spending: SimulationSpending;
    ending: Ending;
    heldBy: string;
    /** Try again while the database refuses (the run got through; its result must not be lost). */
    retry: boolean;
  },
): Promise<void> {
  const ended = stoppedByCap(ran.spending, ran.ending);
  const usage = ran.spending.stored();
  const ending: Finished = {
    end_reason: null,
    turns: [],
    score: null,
    passed: null,
    results: [],
    ...ended,
    usage,
    // A capped simulation at the prices its cap held it to (read as it started), so a price
    // changed mid-run cannot carry it past the cap; any other at the prices as it ends.
    ...usageCost(usage, ran.spending.guardPrices() ?? (await pricesOf(deps.store))),
    ended_at: isoNow(deps.clock),
    // An audio call's length is its own, connect to hang-up: not the voices' start-up before it,
    // nor the speech-to-text and scoring after it. Anything else is timed whole.
    duration_ms: ended.audio?.duration_ms ?? Date.now() - ran.began,
  };
  const recorded = await recordEnding(deps, { id: sim.id, ending, heldBy: ran.heldBy }, ran.retry);
  // Not ours any more (its lease lapsed and it was taken back): the run that holds it records it.
  if (!recorded) return;
  deps.events.emit('simulation.finished', {
    simulationId: sim.id,
    executionId: sim.execution_id,
    status: ended.status,
  });
}

/** A simulation its execution's cost cap leaves no budget for: it ends before it runs. */
const SKIPPED: Ending = {
  status: 'skipped',
  error: "its execution's cost cap (maxCostUsd) had no budget left for it",
};

/** A simulation its cost cap stopped mid-run is skipped: what it said and spent stays, unscored. */
function stoppedByCap(spending: SimulationSpending, ending: Ending): Ending {
  const refusal = spending.refusal();
  if (!refusal) return ending;
  return {
    ...ending,
    status: 'skipped',
    end_reason: null,
    error: refusal,
    score: null,
    passed: null,
    results: [],
  };
}

/** The judge on the judge role's model, its calls counted; reached only when a metric asks. */
const judgeOn = (found: ModelConnection | null, spending: SimulationSpending) =>
  found ? modelJudge(spending.client('judge', found), spending.usage) : null;

/** A result the database could not take, after the retries: the run leaves it running. */
class EndingNotRecorded extends Error {}

/** Waits between attempts to record an ending: well inside a lease, so it is not lost meanwhile. */
const RECORD_RETRY_MS = [250, 750, 2_000];

/**
 * Records an ending, trying again while the database refuses for a moment (a failover, a dropped
 * connection): a finished run is not turned into a failure by the store's hiccup. When it never
 * answers, the simulation stays running under a lease that lapses, and runs again elsewhere.
 */
async function recordEnding(
  deps: RunnerDeps,
  { id, ending, heldBy }: { id: string; ending: Finished; heldBy: string },
  retry: boolean,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.store.simulations.finish(id, ending, heldBy);
    } catch (err) {
      const wait = retry ? RECORD_RETRY_MS[attempt] : undefined;
      if (wait === undefined) throw new EndingNotRecorded((err as Error).message);
      deps.log(
        `the ending of simulation ${id} could not be recorded (${(err as Error).message}); trying again in ${wait} ms`,
      );
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** How the agent under test is reached on its channel: its replica, or its deployed self. */
async function agentFor(
  channel: string,
  agent: NonNullable<Awaited<ReturnType<Store['agents']['get']>>>,
  ctx: {
    deps: RunnerDeps;
    model: (role: 'replica') => ModelClient;
    usage: ReturnType<typeof emptyUsage>;
    began: number;
  },
): Promise<AgentUnderTest> {
  const { deps, usage, began } = ctx;
  if (channel === 'replica')
    return replicaAgent({
      config: effectiveConfiguration(agent),
      model: ctx.model('replica'),
      tools: deps.tools,
      agentId: agent.id,
      usage,
      startedAt: began,
    });
  // Tools the deployed agent reports calling go to the call log, like the replica's own.
  const logRow = reportedCalls(deps.store, 'simulation');
  const reach = await demoReach(deps.demo, agent);
  return chatAgent(
    await openAgentChat(agent, deps.secrets, deps.adapters, reach),
    began,
    async (call) =>
      deps.tools.record(await logRow(call, agent.id, Date.now() - (call.latencyMs ?? 0))),
  );
}

type Outcome = Awaited<ReturnType<typeof converse>>;
type StoredScenario = NonNullable<Awaited<ReturnType<Store['scenarios']['get']>>>;

/**
 * Scores a finished conversation: the scorecard's metrics, then the script's expectations. The
 * scorecard is the one read as the simulation started, the one its scorecard_hash names.
 */
async function scoreOutcome(
  outcome: Outcome & { audio?: AudioSummary | null },
  scenario: StoredScenario,
  ctx: { scorecard: Scorecard | null; judge: () => ReturnType<typeof modelJudge> | null },
): Promise<{ score: number | null; passed: boolean | null; results: MetricResult[] }> {
  const { scorecard } = ctx;
  const metrics = metricsFor(
    scorecard,
    scenario.expectedBehavior,
    scenario.expectedOutcome,
    scenario.script,
  );
  const judge = metrics.some((m) => m.type === 'llm_judge') ? ctx.judge() : null;
  return scoreConversation(
    metrics,
    {
      turns: outcome.turns,
      endReason: outcome.endReason,
      audio: outcome.audio ?? null,
      failedExpectations: outcome.failedExpectations,
      references: scriptReferences(scenario.script, outcome.turns),
    },
    scorecard?.passThreshold ?? 70,
    judge,
  );
}

/** A text conversation with the agent on its channel (its replica, provider chat, or URL). */
async function converseInText(
  ctx: RunContext,
  run: {
    sim: Simulation;
    agent: NonNullable<Awaited<ReturnType<Store['agents']['get']>>>;
    setup: Omit<Parameters<typeof converse>[0], 'agent'>;
    began: number;
    connection: (role: 'caller' | 'judge' | 'replica') => ModelConnection | null;
    /** Its role clients, their calls counted by role and model into its usage. */
    spending: SimulationSpending;
  },
): Promise<Outcome> {
  const agentUnderTest = await agentFor(run.sim.channel, run.agent, {
    deps: ctx.deps,
    model: (role) => {
      const found = run.connection(role);
      if (!found) throw new Error(`no language model is configured for the ${role} role`);
      return run.spending.client(role, found);
    },
    usage: run.spending.usage,
    began: run.began,
  });
  try {
    return await converse({ ...run.setup, agent: agentUnderTest });
  } finally {
    await agentUnderTest.close().catch(() => {});
  }
}

/**
 * How a conversation ended, for the store: its recording kept (audio), then failed, cancelled,
 * or scored against the scorecard and the script.
 */
async function endingOf(
  deps: RunnerDeps,
  run: {
    sim: Simulation & { workspace_id: string };
    scenario: StoredScenario;
    scorecard: Scorecard | null;
    outcome: Outcome & Partial<AudioOutcome>;
    judge: () => ReturnType<typeof modelJudge> | null;
  },
): Promise<Ending> {
  const { sim, outcome } = run;
  const kept = outcome.wav ? await keepRecording(deps, sim.id, outcome.wav) : null;
  const audio = outcome.audio ? { ...outcome.audio, recording: kept !== null } : null;
  const recorded = { audio, recording: kept, turns: outcome.turns };
  if (outcome.failure)
    return { status: 'failed', end_reason: 'error', error: outcome.failure, ...recorded };
  if (outcome.cancelled) return { status: 'cancelled', end_reason: null, ...recorded };
  const scored = await scoreOutcome(outcome, run.scenario, {
    scorecard: run.scorecard,
    judge: run.judge,
  });
  return { status: 'completed', end_reason: outcome.endReason, ...scored, ...recorded };
}

/** Stores a call's recording; answers its name, or null when it could not be written (said in the log). */
async function keepRecording(deps: RunnerDeps, simId: string, wav: Buffer): Promise<string | null> {
  try {
    return await deps.recordings.save(simId, wav);
  } catch (err) {
    deps.log(
      `the recording of simulation ${simId} could not be written: ${(err as Error).message}`,
    );
    return null;
  }
}

/** One short model call, no retries: does this connection answer now? */
async function testModelConnection(
  models: ReturnType<typeof createModelThreads>,
  connection: ModelConnection,
): Promise<ConnectionTest> {
  const began = Date.now();
  try {
    const client = models.client(connection, { attempts: 1, baseDelayMs: 0, timeoutMs: 15_000 });
    const out = await client(
      { messages: [{ role: 'user', content: 'Reply with the single word OK.' }], maxTokens: 5 },
      emptyUsage(),
    );
    return {
      ok: true,
      latencyMs: Date.now() - began,
      message: `${connection.model} answered "${out.text.trim().slice(0, 40)}"`,
    };
  } catch (err) {
    return { ok: false, latencyMs: Date.now() - began, message: (err as Error).message };
  }
}

/** What running one simulation needs from the runner that claimed it. */
interface RunContext {
  deps: RunnerDeps;
  clientFor: (connection: ModelConnection) => ModelClient;
  cancellations: ReturnType<typeof createCancellations>;
  leases: Leases;
  /** RunnerDeps.stopping. */
  stopping: AbortSignal;
  /**
   * Starts the model threads not running yet, and waits until they answer. A model caller's first
   * words of a call are written inside its clock: the thread that writes them is started before
   * dialling, or the first call after a start measures a second slower.
   */
  warmModels: () => Promise<void>;
  /** Where audio calls' frames run; null: on the engine's thread. */
  audioThreads: AudioThreads | null;
}

/**
 * What ends a simulation's turn in flight: a cancel, a lost lease and, in text, the engine's
 * stop. An audio call ends at its next frame (20 ms) instead, where a stop is told from a cancel
 * or a dropped line.
 */
const turnsEndOn = (mode: string, always: AbortSignal[], stopping: AbortSignal): AbortSignal =>
  AbortSignal.any(mode === 'audio' ? always : [...always, stopping]);

/** Runs one claimed simulation to its end: converses, scores, stores, and tells who listens. */
async function runSimulation(
  ctx: RunContext,
  sim: Simulation & { workspace_id: string },
  claim: string,
): Promise<void> {
  const { deps, clientFor, cancellations } = ctx;
  const began = Date.now();
  const spending = simulationSpending(clientFor);
  const { usage } = spending;
  const held = ctx.leases.hold(sim.id, claim);
  const finish = (ending: Ending, retry = true) =>
    finishSimulation(deps, sim, { began, spending, ending, heldBy: claim, retry });
  try {
    // Its share of the cost cap, taken now (none: skipped), then each spend held (cost-guard.ts).
    const budget = await deps.store.simulations.budgets.reserve(sim.id);
    if (budget === 'refused') return await finish(SKIPPED);
    const { scenario, persona, agent, variables } = await inputsOf(deps.store, sim);
    const connections = await connectionsFor(deps.store, deps.secrets, deps.llmDefault);
    const connection = (role: 'caller' | 'judge' | 'replica') => connections[role];
    // What it tests, from what it runs with now; scored on this scorecard (identity-at-run.ts).
    const scorecard = await identityAsRun(deps, sim, { scenario, variables, agent, connections });
    const callerConnection = scenario.script ? null : connection('caller');
    if (!scenario.script && !callerConnection)
      throw new Error('no language model is configured for the caller role');
    const limits = await simulationSettings(deps.store, deps.defaults);
    const abort = cancellations.holdSignal(sim.execution_id);
    const setup = {
      scenario,
      persona,
      variables,
      callerModel: callerConnection && spending.client('caller', callerConnection),
      limits: {
        maxTurns: scenario.maxTurns ?? limits.maxTurns,
        maxDurationMs: scenario.maxDurationMs ?? limits.maxDurationMs,
      },
      usage,
      shouldStop: () =>
        ctx.stopping.aborted || held.lost()
          ? ('interrupt' as const)
          : cancellations.isCancelled(sim.execution_id)
            ? ('cancel' as const)
            : null,
      signal: turnsEndOn(sim.mode, [abort.signal, held.signal], ctx.stopping),
    };
    if (budget === 'reserved') await guardSpending(deps.store, spending, { sim, agent, setup });
    let outcome: Outcome & Partial<AudioOutcome>;
    try {
      if (sim.mode === 'audio' && setup.callerModel) await ctx.warmModels();
      outcome =
        sim.mode === 'audio'
          ? await runAudioConversation(setup, await audioCallContext(ctx, { agent, sim, spending }))
          : await converseInText(ctx, { sim, agent, setup, began, connection, spending });
      spending.called(agent.provider, outcome.audio);
    } finally {
      abort.release();
    }
    const judge = () => judgeOn(connection('judge'), spending);
    await finish(await endingOf(deps, { sim, scenario, scorecard, outcome, judge }));
  } catch (err) {
    // Interrupted, it stays running: the next start (or, once its lease lapses, another server)
    // runs it again. With its lease lost, it is no longer ours to record; an ending the database
    // never took is not recorded as another ending either.
    // Anything that fails as the engine stops may be the stop's doing: it runs again too.
    if (err instanceof Interrupted || held.lost() || ctx.stopping.aborted) return;
    // A store call the database dropped (an outage mid-run) is not the run's failure, even when
    // the database answers again by now: it stays running, unrenewed, and runs again once its
    // lease lapses.
    if (err instanceof EndingNotRecorded || isDatabaseOutage(err)) {
      deps.log(`simulation ${sim.id} stays running, to run again: ${(err as Error).message}`);
      return;
    }
    // One attempt: when the database cannot take it, the simulation stays running too.
    await finish(
      { status: 'failed', end_reason: 'error', error: (err as Error).message },
      false,
    ).catch((e: unknown) =>
      deps.log(`simulation ${sim.id} stays running, to run again: ${(e as Error).message}`),
    );
  } finally {
    held.release();
  }
}

/**
 * Runs `task` whenever asked while `on()`, one run at a time: asked during a run, it runs once more
 * after it. (Two fills at once would each see room in the pool and claim past its size.)
 */
function oneAtATime(task: () => Promise<void>, on: () => boolean, fail: (err: Error) => void) {
  let running: Promise<void> | null = null;
  let again = false;
  const run = (): void => {
    if (!on()) return;
    if (running) {
      again = true;
      return;
    }
    running = task()
      .catch((err: unknown) => fail(err as Error))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return Object.assign(run, { settled: () => running ?? Promise.resolve() });
}

/**
 * Fills the pool when asked, one fill at a time. With the database unreachable, the queue is tried
 * again ever less often, and said so each time.
 */
function queuePump(fill: () => Promise<void>, on: () => boolean, log: (m: string) => void) {
  const backoff = createBackoff();
  return oneAtATime(
    async () => {
      await fill();
      if (backoff.succeeded()) log('the simulation queue answers again');
    },
    () => on() && !backoff.waiting(),
    (err) => {
      const wait = backoff.failed();
      log(`the simulation queue failed (${err.message}); trying again in ${wait / 1000} s`);
    },
  );
}

/** Simulations the queue's housekeeping ended, told to who listens (on every instance). */
function announceEnded(events: EventBus, sims: EndedHere[]): void {
  for (const s of sims)
    events.emit('simulation.finished', {
      simulationId: s.id,
      executionId: s.execution_id,
      status: s.status,
    });
}

/** What an audio simulation's call is placed with. */
async function audioCallContext(
  ctx: RunContext,
  { agent, sim, spending }: { agent: AgentRecord; sim: Simulation; spending: SimulationSpending },
): Promise<Parameters<typeof runAudioConversation>[1]> {
  const { deps } = ctx;
  return {
    agent,
    secrets: deps.secrets,
    speech: await spending.meteredSpeech(deps),
    adapters: deps.adapters,
    noiseDir: deps.noiseDir,
    line: sim.line,
    reach: await demoReach(deps.demo, agent),
    audioThreads: ctx.audioThreads,
  };
}

/**
 * The runner's threads. Model threads: two; with one, that thread's SDK work outweighed all the
 * engine's own and held the pace (the simulations benchmark, on two cores), and a second takes
 * the calls that come while one is busy. Audio threads: as the options say (none: frames on the
 * engine's thread).
 */
function runnerThreads(deps: RunnerDeps) {
  const models = createModelThreads(2);
  const audioThreads = deps.audioThreads === 0 ? null : createAudioThreads(deps.audioThreads ?? 1);
  return { models, audioThreads };
}

/**
 * Works the simulation queue (queued rows in SQLite) with a pool of `concurrency` workers.
 * A simulation interrupted by a stop or a crash is still `running` in the store; the next start
 * puts it back in the queue, so it runs again from the start, never lost and never twice at once.
 */
export function createSimulationRunner(deps: RunnerDeps) {
  const { store, clock, events, stopping } = deps;
  const active = new Set<Promise<void>>();
  const { models, audioThreads } = runnerThreads(deps);
  const clientFor = (connection: ModelConnection): ModelClient =>
    models.client(connection, deps.modelPolicy ?? DEFAULT_MODEL_POLICY);
  const cancellations = createCancellations(store);
  let started = false;
  const leases = createLeases({
    store,
    leaseMs: deps.leaseMs,
    shared: store.dialect === 'postgres',
    pump: () => pump(),
    ended: (sims) => announceEnded(events, sims),
    log: deps.log,
  });
  const ctx: RunContext = {
    deps,
    clientFor,
    cancellations,
    leases,
    stopping,
    warmModels: () => models.warm(),
    audioThreads,
  };
  const pump = queuePump(
    () => fill(),
    () => started && !stopping.aborted,
    deps.log,
  );

  async function fill(): Promise<void> {
    const concurrency =
      deps.concurrency ?? (await simulationSettings(store, deps.defaults)).concurrency;
    while (active.size < concurrency && !stopping.aborted) {
      const lease = leases.claim();
      const sim = await store.simulations.claim(isoNow(clock), lease);
      if (!sim) return;
      events.emit('simulation.progress', {
        simulationId: sim.id,
        executionId: sim.execution_id,
        status: 'running',
      });
      const job = runSimulation(ctx, sim, lease.owner)
        .catch((err) =>
          deps.log(`simulation ${sim.id} failed unexpectedly: ${(err as Error).message}`),
        )
        .finally(() => {
          active.delete(job);
          pump();
        });
      active.add(job);
    }
  }

  return {
    async start(): Promise<void> {
      // Recovery first (leases.ts): alone on SQLite, what the last stop interrupted runs again;
      // servers sharing a database take back only what a stopped server's lapsed leases left.
      await leases.start(isoNow(clock));
      started = true;
      pump();
    },
    enqueued: pump,
    /** An execution was cancelled: its running simulations stop now, their turns in flight aborted. */
    cancelled(executionId: string): void {
      cancellations.cancel(executionId);
    },
    /** One short model call, no retries: does this connection answer now? */
    testModel: (connection: ModelConnection): Promise<ConnectionTest> =>
      testModelConnection(models, connection),
    /** A model client on the runner's model threads (the SDKs load there only). */
    modelClient: clientFor,
    /** Bytes of heap the model threads use. */
    modelThreadsHeapUsed: () => models.heapUsed(),
    /** Where audio calls' frames run (null: this thread): their memory, their workers (tests). */
    audioThreads,
    async idle(): Promise<void> {
      while (active.size) await Promise.allSettled([...active]);
    },
    /** Simulations this process runs now: what a stop waits for. */
    inFlight: (): number => active.size,
    /** After `deps.stopping` was aborted: waits for the pool to wind down and hands leases back. */
    async stop(): Promise<void> {
      await pump.settled();
      await Promise.allSettled([...active]);
      // After the interrupted simulations have settled: they stay running, ours to hand back.
      await leases.stop();
      await Promise.all([models.close(), audioThreads?.close()]);
    },
  };
}

export type SimulationRunner = ReturnType<typeof createSimulationRunner>;
