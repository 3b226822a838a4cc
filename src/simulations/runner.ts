import type { ConnectionTest } from '../domain/providers.js';
import type { Clock } from '../clock.js';
import { isoNow } from '../clock.js';
import type { EventBus } from '../events.js';
import { createModelThreads } from '../llm/model-threads.js';
import { connectionFor } from '../llm/settings.js';
import {
  DEFAULT_MODEL_POLICY,
  emptyUsage,
  type ModelClient,
  type ModelConnection,
  type ModelPolicy,
} from '../llm/types.js';
import { effectiveConfiguration } from '../providers/view.js';
import type { SecretBox } from '../secrets.js';
import type { Store } from '../store/index.js';
import type { Simulation } from '../store/simulations.js';
import { reportedCalls } from '../tools/reported.js';
import type { RuntimeDeps } from '../tools/types.js';
import { resolveVariables } from './caller.js';
import { converse, Interrupted } from './conversation.js';
import { modelJudge } from './judge.js';
import { replicaAgent } from './replica.js';
import { chatAgent, type AgentUnderTest } from './agent-under-test.js';
import { simulationSettings, type SimulationSettings } from './settings.js';
import { openAgentChat } from '../providers/agent-chat.js';
import type { ProviderName } from '../providers/registry.js';
import type { ProviderAdapter } from '../providers/types.js';
import { metricsFor, scoreConversation, type MetricResult } from './scoring.js';

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
  log(message: string): void;
}

/**
 * Works the simulation queue (queued rows in SQLite) with a pool of `concurrency` workers.
 * A simulation interrupted by a stop or a crash is still `running` in the store; the next start
 * puts it back in the queue, so it runs again from the start, never lost and never twice at once.
 */
export function createSimulationRunner(deps: RunnerDeps) {
  const { store, clock, events } = deps;
  const active = new Set<Promise<void>>();
  // Two: with one, that thread's SDK work outweighed all the engine's own and held the pace (the
  // simulations benchmark, on two cores); a second takes the calls that come while one is busy.
  const models = createModelThreads(2);
  const clientFor = (connection: ModelConnection): ModelClient =>
    models.client(connection, deps.modelPolicy ?? DEFAULT_MODEL_POLICY);
  let stopping = false;
  // Cancels made through this engine are seen at once; the store is read at most every second
  // per execution (another process may have cancelled), not at every turn of every simulation.
  const cancelled = new Set<string>();
  const checkedAt = new Map<string, number>();
  // One abort signal per execution with simulations running: a cancel ends their turns in flight.
  const aborts = new Map<string, { controller: AbortController; running: number }>();
  const cancel = (executionId: string): void => {
    cancelled.add(executionId);
    aborts.get(executionId)?.controller.abort();
  };
  const isCancelled = (executionId: string): boolean => {
    if (cancelled.has(executionId)) return true;
    const now = Date.now();
    if (now - (checkedAt.get(executionId) ?? 0) < 1_000) return false;
    checkedAt.set(executionId, now);
    if (checkedAt.size > 1_000) checkedAt.clear();
    if (!store.simulations.isCancelled(executionId)) return false;
    cancel(executionId);
    return true;
  };
  /** The execution's abort signal, held while this simulation runs; release() when it ends. */
  const holdSignal = (executionId: string) => {
    let entry = aborts.get(executionId);
    if (!entry)
      aborts.set(executionId, (entry = { controller: new AbortController(), running: 0 }));
    entry.running++;
    if (cancelled.has(executionId)) entry.controller.abort();
    const held = entry;
    return {
      signal: held.controller.signal,
      release: () => {
        if (--held.running === 0 && aborts.get(executionId) === held) aborts.delete(executionId);
      },
    };
  };
  let started = false;

  async function run(sim: Simulation & { workspace_id: string }): Promise<void> {
    const began = Date.now();
    const usage = emptyUsage();
    const finish = (
      r: Partial<Parameters<typeof store.simulations.finish>[1]> & { status: Simulation['status'] },
    ) => {
      store.simulations.finish(sim.id, {
        ended_at: isoNow(clock),
        duration_ms: Date.now() - began,
        end_reason: null,
        turns: [],
        score: null,
        passed: null,
        results: [],
        usage,
        ...r,
      });
      events.emit('simulation.finished', {
        simulationId: sim.id,
        executionId: sim.execution_id,
        status: r.status,
      });
    };
    try {
      const scenario = store.scenarios.get(sim.workspace_id, sim.scenario_id);
      const persona = store.personas.profile(sim.workspace_id, sim.persona_id ?? '');
      const agent = store.agents.get(sim.agent_id ?? '');
      if (!scenario || !persona || !agent)
        throw new Error('its scenario, persona or agent was deleted');
      const variables = resolveVariables(
        scenario.promptVariables,
        store.simulations.variablesOf(sim.execution_id) ?? {},
      );
      const connection = (role: 'caller' | 'judge' | 'replica') =>
        connectionFor(store, deps.secrets, role, deps.llmDefault);
      const callerConnection = scenario.script ? null : connection('caller');
      if (!scenario.script && !callerConnection)
        throw new Error('no language model is configured for the caller role');
      let agentUnderTest: AgentUnderTest;
      if (sim.channel === 'replica') {
        const replica = connection('replica');
        if (!replica) throw new Error('no language model is configured for the replica role');
        agentUnderTest = replicaAgent(
          effectiveConfiguration(agent),
          clientFor(replica),
          deps.tools,
          agent.id,
          usage,
          began,
        );
      } else {
        // Tools the deployed agent reports calling go to the call log, like the replica's own.
        const logRow = reportedCalls(store, 'simulation');
        agentUnderTest = chatAgent(
          await openAgentChat(agent, deps.secrets, deps.adapters),
          began,
          (call) => deps.tools.record(logRow(call, agent.id, Date.now() - (call.latencyMs ?? 0))),
        );
      }
      const limits = simulationSettings(store, deps.defaults);
      const abort = holdSignal(sim.execution_id);
      let outcome;
      try {
        outcome = await converse({
          scenario,
          persona,
          variables,
          agent: agentUnderTest,
          callerModel: callerConnection && clientFor(callerConnection),
          limits: {
            maxTurns: scenario.maxTurns ?? limits.maxTurns,
            maxDurationMs: scenario.maxDurationMs ?? limits.maxDurationMs,
          },
          usage,
          shouldStop: () =>
            stopping ? 'interrupt' : isCancelled(sim.execution_id) ? 'cancel' : null,
          signal: abort.signal,
        });
      } finally {
        abort.release();
        await agentUnderTest.close().catch(() => {});
      }
      if (outcome.cancelled)
        return finish({ status: 'cancelled', turns: outcome.turns, end_reason: null });
      const scorecard = scenario.scorecard
        ? (store.scorecards.get(sim.workspace_id, scenario.scorecard) ?? null)
        : null;
      const metrics = metricsFor(scorecard, scenario.expectedBehavior, scenario.expectedOutcome);
      // The judge model is looked up only when a metric asks for it.
      const judgeConnection = metrics.some((m) => m.type === 'llm_judge')
        ? connection('judge')
        : null;
      const judge = judgeConnection ? modelJudge(clientFor(judgeConnection), usage) : null;
      const scored = await scoreConversation(
        metrics,
        { turns: outcome.turns, endReason: outcome.endReason },
        scorecard?.passThreshold ?? 70,
        judge,
      );
      const results: MetricResult[] = [...scored.results];
      let passed = scored.passed;
      if (scenario.script && scenario.script.some((l) => l.expect)) {
        const ok = outcome.failedExpectations.length === 0;
        results.push({
          metric_id: 'script',
          name: 'Script expectations',
          category: 'script',
          type: 'script',
          score: ok ? 100 : 0,
          passed: ok,
          reasoning: ok
            ? 'Every expectation of the script held.'
            : outcome.failedExpectations.join(' '),
        });
        if (!ok) passed = false;
        else if (passed === null) passed = true;
      }
      finish({
        status: 'completed',
        turns: outcome.turns,
        end_reason: outcome.endReason,
        score: scored.score,
        passed,
        results,
      });
    } catch (err) {
      if (err instanceof Interrupted) return; // stays running: the next start runs it again
      finish({ status: 'failed', end_reason: 'error', error: (err as Error).message });
    }
  }

  function pump(): void {
    if (!started || stopping) return;
    const { concurrency } = simulationSettings(store, deps.defaults);
    while (active.size < concurrency) {
      const sim = store.simulations.claim(isoNow(clock));
      if (!sim) return;
      events.emit('simulation.progress', {
        simulationId: sim.id,
        executionId: sim.execution_id,
        status: 'running',
      });
      const job = run(sim)
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
    start(): void {
      started = true;
      const recovered = store.simulations.recover(isoNow(clock));
      if (recovered)
        deps.log(`${recovered} simulation(s) interrupted by the last stop will run again`);
      pump();
    },
    enqueued: pump,
    /** An execution was cancelled: its running simulations stop now, their turns in flight aborted. */
    cancelled(executionId: string): void {
      cancel(executionId);
    },
    /** One short model call, no retries: does this connection answer now? */
    async testModel(connection: ModelConnection): Promise<ConnectionTest> {
      const began = Date.now();
      try {
        const client = models.client(connection, {
          attempts: 1,
          baseDelayMs: 0,
          timeoutMs: 15_000,
        });
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
    },
    /** Bytes of heap the model threads use. */
    modelThreadsHeapUsed: () => models.heapUsed(),
    async idle(): Promise<void> {
      while (active.size) await Promise.allSettled([...active]);
    },
    async stop(): Promise<void> {
      stopping = true;
      await Promise.allSettled([...active]);
      await models.close();
    },
  };
}

export type SimulationRunner = ReturnType<typeof createSimulationRunner>;
