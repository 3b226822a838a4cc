import { isoNow } from '../clock.js';
import type { Experiment, ExperimentRecord, ExperimentStatus } from '../domain/experiments.js';
import { invalidField } from '../errors.js';
import { newId } from '../ids.js';
import { deepMerge } from '../providers/diff.js';
import {
  prepareCheckedExecution,
  type ExecutionDeps,
  type ExecutionRequest,
} from '../simulations/start.js';
import { assertAgentsShared } from '../simulations/agent-sharing.js';
import type { Store } from '../store/index.js';

/**
 * Experiments: the agent as it is now (the baseline) against the same agent with a configuration
 * on top (the candidate), both on the replica, one execution per scenario and side. The candidate
 * is no stored agent: its executions carry the configuration (simulations/candidate-configuration
 * .ts), so both sides run the same agent id and the comparison pairs run r of a scenario, persona
 * and agent on one side with run r on the other. The sides' simulations take turns in the queue
 * (b1, c1, b2, c2, ...), so whatever happens meanwhile (a slow model, a busy host) meets both.
 */

export interface ExperimentInput {
  workspaceId: string;
  agentId: string;
  /** Validated as PATCH /v1/agents/{id} takes it (unknown paths refused by the operation). */
  configuration: Record<string, unknown>;
  scenarioIds: string[];
  runs: number;
  maxCostUsd?: number;
  /** Started with a workspace token: the agent must be shared with the workspace. */
  sharedAgentsOnly: boolean;
}

/** The agent an experiment may run: one with a configuration of its own to change (not http). */
async function experimentAgent(store: Store, agentId: string) {
  const agent = await store.agents.get(agentId);
  if (!agent) throw invalidField('agentId', `unknown agent id: ${agentId}`);
  if (agent.provider === 'http' || agent.provider === 'demo')
    throw invalidField(
      'agentId',
      `agent ${agent.name} is reached at its own URL: it has no configuration here to change, and no replica`,
    );
  return agent;
}

/** Every scenario this workspace's, each named once (400 naming `scenarioIds` otherwise). */
async function checkScenarios(store: Store, workspaceId: string, ids: string[]): Promise<void> {
  for (const [i, id] of ids.entries()) {
    if (ids.indexOf(id) < i)
      throw invalidField('scenarioIds', `scenarioIds[${i}]: scenario ${id} is listed twice`);
    if (!(await store.scenarios.get(workspaceId, id)))
      throw invalidField(
        'scenarioIds',
        `scenarioIds[${i}]: scenario ${id} was not found in this workspace`,
      );
  }
}

/**
 * Each scenario's execution on each side, built and checked before anything is queued (a
 * refused experiment queues nothing). The cap, when given, is shared out evenly: each execution
 * may spend its part of it.
 */
async function prepareSides(deps: ExecutionDeps, input: ExperimentInput) {
  const share =
    input.maxCostUsd === undefined ? undefined : input.maxCostUsd / (2 * input.scenarioIds.length);
  const request = (configuration?: Record<string, unknown>): ExecutionRequest => ({
    variables: {},
    runs: input.runs,
    channel: 'replica',
    mode: 'text',
    agentIds: [input.agentId],
    sharedAgentsOnly: input.sharedAgentsOnly,
    configuration,
    ...(share === undefined ? {} : { maxCostUsd: share }),
  });
  // Prepared side by side (their reachability checks overlap); queued together afterwards.
  const prepare = (scenarioId: string, configuration?: Record<string, unknown>) =>
    prepareCheckedExecution(deps, input.workspaceId, scenarioId, request(configuration));
  const [baseline, candidate] = await Promise.all([
    Promise.all(input.scenarioIds.map((id) => prepare(id))),
    Promise.all(input.scenarioIds.map((id) => prepare(id, input.configuration))),
  ]);
  return { baseline, candidate };
}

/** Starts an experiment: checks everything, then queues both sides together, interleaved. */
export async function startExperiment(
  deps: ExecutionDeps,
  input: ExperimentInput,
): Promise<ExperimentRecord> {
  // Before any other check: a token learns nothing of an agent it may not run.
  if (input.sharedAgentsOnly)
    await assertAgentsShared(deps.store, input.workspaceId, [input.agentId]);
  await experimentAgent(deps.store, input.agentId);
  await checkScenarios(deps.store, input.workspaceId, input.scenarioIds);
  const sides = await prepareSides(deps, input);
  const at = isoNow(deps.clock);
  const record: ExperimentRecord = {
    id: newId('xpr', deps.clock.now()),
    workspace_id: input.workspaceId,
    agent_id: input.agentId,
    configuration: input.configuration,
    scenario_ids: input.scenarioIds,
    runs: input.runs,
    max_cost_usd: input.maxCostUsd ?? null,
    baseline_execution_ids: sides.baseline.map((p) => p.answer.id),
    candidate_execution_ids: sides.candidate.map((p) => p.answer.id),
    state: 'running',
    comparison_id: null,
    verdict: null,
    error: null,
    applied_at: null,
    created_at: at,
    updated_at: at,
  };
  await deps.store.experiments.create(record, {
    baseline: sides.baseline.map((p) => p.batch),
    candidate: sides.candidate.map((p) => p.batch),
  });
  deps.runner.enqueued();
  return record;
}

/** Statuses of an experiment's executions, as they are now (absent: deleted). */
export async function executionStatuses(store: Store, e: ExperimentRecord): Promise<string[]> {
  const ids = [...e.baseline_execution_ids, ...e.candidate_execution_ids];
  const found = await Promise.all(ids.map((id) => store.simulations.execution(e.workspace_id, id)));
  return found.map((x) => x?.status ?? 'cancelled');
}

/** Running until compared: queued while no simulation of either side has started. */
async function statusOf(store: Store, e: ExperimentRecord): Promise<ExperimentStatus> {
  if (e.state !== 'running' && e.state !== 'comparing') return e.state;
  const statuses = await executionStatuses(store, e);
  return statuses.every((s) => s === 'queued') ? 'queued' : 'running';
}

/** The experiment as answered. */
export async function experimentAnswer(store: Store, e: ExperimentRecord): Promise<Experiment> {
  return {
    id: e.id,
    status: await statusOf(store, e),
    agent_id: e.agent_id,
    baseline_execution_id: e.baseline_execution_ids[0]!,
    candidate_execution_id: e.candidate_execution_ids[0]!,
    comparison_id: e.comparison_id,
    verdict: e.verdict,
    baseline_execution_ids: e.baseline_execution_ids,
    candidate_execution_ids: e.candidate_execution_ids,
    configuration: e.configuration,
    scenario_ids: e.scenario_ids,
    runs: e.runs,
    max_cost_usd: e.max_cost_usd,
    error: e.error,
    applied_at: e.applied_at,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

/**
 * Makes the experiment's configuration the agent's overrides, merged as PATCH /v1/agents/{id}
 * merges them: a local change, never written to the provider.
 */
export async function applyExperiment(
  deps: Pick<ExecutionDeps, 'store' | 'clock'>,
  e: ExperimentRecord,
): Promise<void> {
  const agent = await experimentAgent(deps.store, e.agent_id);
  const at = isoNow(deps.clock);
  await deps.store.transaction(async (tx) => {
    await tx.agents.update(agent.id, {
      overrides: deepMerge(agent.overrides, { configuration: e.configuration }),
      updated_at: at,
    });
    await tx.experiments.update(e.id, { applied_at: at }, at);
  });
}
