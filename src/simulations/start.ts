import { isoNow } from '../clock.js';
import { AppError, notFound, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { connectionFor } from '../llm/settings.js';
import type { Clock } from '../clock.js';
import type { ModelConnection } from '../llm/types.js';
import type { SecretBox } from '../secrets.js';
import type { Store } from '../store/index.js';
import type { SimulationRunner } from './runner.js';
import { resolveVariables } from './caller.js';
import type { Channel } from './agent-under-test.js';
import { simulationSettings, type SimulationSettings } from './settings.js';
import { channelOf } from '../providers/view.js';
import type { AgentRecord } from '../store/agents.js';

export interface ExecutionRequest {
  variables: Record<string, string>;
  runs: number;
  channel?: Channel;
}

/**
 * Starts an execution: one simulation per persona, target agent and run, queued for the runner.
 * The execute endpoint and schedules both come here, so a scheduled run is exactly a manual one.
 * Refuses (400) whatever would keep every simulation from running.
 */
/** Why `agent` cannot be reached on `channel`, or null when it can. */
export function channelProblem(
  agent: AgentRecord,
  channel: Channel,
  hasReplicaModel: () => boolean,
): string | null {
  if ((agent.status === 'disconnected' || !agent.credentials) && channel !== 'replica')
    return 'it has no credentials (disconnected); connect it again, or use the replica channel';
  if (agent.provider === 'http')
    return channel === 'http' ? null : 'an agent reached at its own URL has only the http channel';
  if (channel === 'http') return 'only agents connected with provider "http" have the http channel';
  if (channel === 'provider' && !agent.snapshot.textChat)
    return `${agent.provider} offers no text chat for this agent; use the replica channel`;
  if (channel === 'replica' && !hasReplicaModel())
    return 'the replica channel needs a language model for the replica role (PATCH /v1/settings, or CALLBENCH_LLM_*)';
  return null;
}

/** What starting an execution needs of the engine (not the whole services, to keep layers apart). */
export interface ExecutionDeps {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  llmDefault: ModelConnection | null;
  runner: SimulationRunner;
  simulationDefaults: SimulationSettings;
}

export function startExecution(
  ctx: ExecutionDeps,
  workspaceId: string,
  scenarioId: string,
  req: ExecutionRequest,
) {
  const scenario = ctx.store.scenarios.get(workspaceId, scenarioId);
  if (!scenario) throw notFound('scenario', scenarioId);
  const problems: ErrorDetail[] = [];
  if (!scenario.personas.length)
    problems.push({ path: 'personas', message: 'the scenario has no personas to play the caller' });
  if (!scenario.targetAgents.length)
    problems.push({ path: 'targetAgents', message: 'the scenario has no target agents' });
  const variables = resolveVariables(scenario.promptVariables, req.variables);
  const model = (role: 'caller' | 'replica') =>
    connectionFor(ctx.store, ctx.secrets, role, ctx.llmDefault);
  if (!scenario.script && !model('caller'))
    problems.push({
      path: 'settings.llm.caller',
      message:
        'the scenario has no script, and no language model is configured for the caller role',
    });
  const channels = new Map<string, string>();
  for (const agentId of scenario.targetAgents) {
    const agent = ctx.store.agents.get(agentId);
    if (!agent) {
      problems.push({ path: 'targetAgents', message: `agent ${agentId} no longer exists` });
      continue;
    }
    const channel = req.channel ?? channelOf(agent);
    const problem = channelProblem(agent, channel, () => model('replica') !== null);
    if (problem)
      problems.push({
        path: req.channel ? 'channel' : `agents.${agentId}.channel`,
        message: `agent ${agent.name} (${agentId}): ${problem}`,
      });
    channels.set(agentId, channel);
  }
  if (problems.length)
    throw new AppError(
      'validation_error',
      400,
      `Nothing can run: ${problems.map((p) => p.message).join('; ')}`,
      problems,
    );
  const now = ctx.clock.now();
  const sims = scenario.personas.flatMap((persona_id) =>
    scenario.targetAgents.flatMap((agent_id) =>
      Array.from({ length: req.runs }, () => ({
        id: newId('sim', now),
        persona_id,
        agent_id,
        channel: channels.get(agent_id)!,
      })),
    ),
  );
  const id = newId('exe', now);
  const { concurrency } = simulationSettings(ctx.store, ctx.simulationDefaults);
  const estimate = new Date(now + Math.ceil(sims.length / concurrency) * 30_000).toISOString();
  ctx.store.simulations.createExecution(
    {
      id,
      workspaceId,
      scenarioId,
      variables,
      runs: req.runs,
      channel: req.channel ?? null,
      created_at: isoNow(ctx.clock),
      estimated_completion: estimate,
    },
    sims,
  );
  ctx.runner.enqueued();
  return {
    id,
    scenario_id: scenarioId,
    status: 'queued' as const,
    simulations_created: sims.length,
    estimated_completion: estimate,
  };
}
