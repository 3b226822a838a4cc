import { isoNow } from '../clock.js';
import { AppError, notFound, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { connectionFor } from '../llm/settings.js';
import type { EngineServices } from '../operations/types.js';
import { resolveVariables } from './caller.js';

export interface ExecutionRequest {
  variables: Record<string, string>;
  runs: number;
  channel?: 'provider' | 'replica' | 'http';
}

/**
 * Starts an execution: one simulation per persona, target agent and run, queued for the runner.
 * The execute endpoint and schedules both come here, so a scheduled run is exactly a manual one.
 * Refuses (400) whatever would keep every simulation from running.
 */
export function startExecution(ctx: Pick<EngineServices, 'store' | 'secrets' | 'clock' | 'llmDefault' | 'runner'>, workspaceId: string, scenarioId: string, req: ExecutionRequest) {
  const scenario = ctx.store.scenarios.get(workspaceId, scenarioId);
  if (!scenario) throw notFound('scenario', scenarioId);
  const problems: ErrorDetail[] = [];
  if (!scenario.personas.length) problems.push({ path: 'personas', message: 'the scenario has no personas to play the caller' });
  if (!scenario.targetAgents.length) problems.push({ path: 'targetAgents', message: 'the scenario has no target agents' });
  const variables = resolveVariables(scenario.promptVariables, req.variables);
  const model = (role: 'caller' | 'replica') => connectionFor(ctx.store, ctx.secrets, role, ctx.llmDefault);
  if (!model('replica')) problems.push({ path: 'settings.llm.replica', message: 'no language model is configured for the replica role (PATCH /v1/settings, or CALLBENCH_LLM_*)' });
  if (!scenario.script && !model('caller')) problems.push({ path: 'settings.llm.caller', message: 'the scenario has no script, and no language model is configured for the caller role' });
  for (const agentId of scenario.targetAgents) {
    const agent = ctx.store.agents.get(agentId);
    const wanted = req.channel ?? agent?.channel ?? 'replica';
    if (wanted !== 'replica') problems.push({ path: 'channel', message: `agent ${agentId}: the ${wanted} channel is not available in this build yet; execute with {"channel": "replica"}` });
  }
  if (problems.length) throw new AppError('validation_error', 400, `Nothing can run: ${problems.map((p) => p.message).join('; ')}`, problems);
  const now = ctx.clock.now();
  const sims = scenario.personas.flatMap((persona_id) => scenario.targetAgents.flatMap((agent_id) =>
    Array.from({ length: req.runs }, () => ({ id: newId('sim', now), persona_id, agent_id, channel: 'replica' }))));
  const id = newId('exe', now);
  const estimate = new Date(now + Math.ceil(sims.length / 4) * 30_000).toISOString();
  ctx.store.simulations.createExecution({ id, workspaceId, scenarioId, variables, runs: req.runs, channel: req.channel ?? null, created_at: isoNow(ctx.clock), estimated_completion: estimate }, sims);
  ctx.runner.enqueued();
  return { id, scenario_id: scenarioId, status: 'queued' as const, simulations_created: sims.length, estimated_completion: estimate };
}
