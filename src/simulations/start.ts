import { isoNow } from '../clock.js';
import { AppError, notFound, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { connectionsFor } from '../llm/settings.js';
import type { Clock } from '../clock.js';
import type { ModelConnection, Role } from '../llm/types.js';
import { unreachable as unreachableAt } from '../net/reachability.js';
import { openCredentials } from '../providers/credentials.js';
import type { Scenario } from '../store/scenarios.js';
import { metricsFor } from './scoring.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { Store } from '../store/index.js';
import type { SimulationRunner } from './runner.js';
import { resolveVariables } from '../conversation/caller.js';
import type { Channel } from '../conversation/agent-under-test.js';
import { simulationSettings, type SimulationSettings } from './settings.js';
import { channelOf } from '../providers/view.js';
import type { AgentRecord } from '../store/agents.js';
import type { Persona } from '../store/personas.js';
import type { SimulationMode } from '../domain/audio.js';
import { undeclaredVariables } from '../domain/scenarios.js';
import type { Speech } from '../speech/index.js';
import { audioCallProblem, voiceProblems } from '../voice/audio-plan.js';
import { simulationLine } from '../voice/caller-conditions.js';
import { SCRIPT_LINE_ACTS, type LineChoice } from '../domain/callers.js';
import { assertAgentsShared } from './agent-sharing.js';
import { randomSeed, runSeed } from '../audio/seeded-random.js';
import type { AgentConfigUsed } from '../domain/simulations.js';
import { agentConfigUsed, scenarioHash, scorecardHash } from './run-identity.js';
import { withConfiguration } from './candidate-configuration.js';
import type { ExecutionBatch } from '../store/executions.js';
import { costCap } from './cost-estimate.js';

export interface ExecutionRequest {
  variables: Record<string, string>;
  runs: number;
  channel?: Channel;
  /** Text or audio for every simulation; absent: the scenario's own (`audio.enabled`). */
  mode?: SimulationMode;
  /** Audio mode: the line for every simulation; absent: the scenario's own (`audio.line`). */
  line?: LineChoice;
  /** Audio mode: the root seed of the runs' losses, jitter and behaviours (run r: runSeed). */
  seed?: number;
  /** Started with a workspace token: every target agent must be shared with the workspace. */
  sharedAgentsOnly?: boolean;
  /**
   * A hard cap on what the execution spends (dollars, at the prices in force): each simulation
   * reserves its estimated share as it starts and each spend's worst case before making it
   * (cost-guard.ts); those it leaves no budget for are skipped (cost-estimate.ts). Refused while
   * anything in play has no price.
   */
  maxCostUsd?: number;
  /**
   * Run on these agents instead of the scenario's target agents (the drift suite runs a scenario
   * on the one agent whose new version it tests); absent: the scenario's targets.
   */
  agentIds?: string[];
  /**
   * An experiment's candidate: this configuration on top of each agent, for this execution only
   * (candidate-configuration.ts; the runner finds it again by the execution's id).
   */
  configuration?: Record<string, unknown>;
}

/** Why `agent` cannot be reached on `channel`, or null when it can. */
export function channelProblem(
  agent: AgentRecord,
  channel: Channel,
  hasReplicaModel: () => boolean,
): string | null {
  if ((agent.status === 'disconnected' || !agent.credentials) && channel !== 'replica')
    return 'it has no credentials (disconnected); connect it again, or use the replica channel';
  if (agent.provider === 'http' || agent.provider === 'demo')
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
  speech: Speech;
}

/** What an execution would run, and every problem found without touching the network. */
export interface ExecutionPlan {
  workspaceId: string;
  scenario: Scenario;
  variables: Record<string, string>;
  channels: Map<string, Channel>;
  mode: SimulationMode;
  problems: ErrorDetail[];
  /** Models the execution needs, by role (for the reachability check). */
  models: Partial<Record<Role, ModelConnection>>;
}

/**
 * Looks at a scenario as an execution would run it: personas and agents to pair, variables that
 * are declared, each agent on a channel it has, and a model for every role that needs one.
 */
export async function planExecution(
  ctx: ExecutionDeps,
  workspaceId: string,
  scenarioId: string,
  req: ExecutionRequest,
): Promise<ExecutionPlan> {
  const found = await ctx.store.scenarios.get(workspaceId, scenarioId);
  if (!found) throw notFound('scenario', scenarioId);
  // Every later step reads the targets from the scenario: narrowed here, once.
  const scenario = req.agentIds ? { ...found, targetAgents: req.agentIds } : found;
  // Before any other check: a token learns nothing of an agent it may not run.
  if (req.sharedAgentsOnly) await assertAgentsShared(ctx.store, workspaceId, scenario.targetAgents);
  const problems: ErrorDetail[] = [];
  if (!scenario.personas.length)
    problems.push({ path: 'personas', message: 'the scenario has no personas to play the caller' });
  if (!scenario.targetAgents.length)
    problems.push({ path: 'targetAgents', message: 'the scenario has no target agents' });
  problems.push(...undeclaredVariables(scenario));
  const variables = resolveVariables(scenario.promptVariables, req.variables);
  // Each role's connection is read (and its key opened) once, however many agents ask for it.
  const connections = await connectionsFor(ctx.store, ctx.secrets, ctx.llmDefault);
  const model = (role: Role): ModelConnection | null => connections[role];
  const models: ExecutionPlan['models'] = {};
  /** A role the execution cannot run without: its model, or the problem saying why it is needed. */
  const need = (role: Role, why: string): void => {
    const found = model(role);
    if (found) models[role] = found;
    else problems.push({ path: `settings.llm.${role}`, message: why });
  };
  if (!scenario.script)
    need(
      'caller',
      'the scenario has no script, and no language model is configured for the caller role',
    );
  const scorecard = scenario.scorecard
    ? ((await ctx.store.scorecards.get(workspaceId, scenario.scorecard)) ?? null)
    : null;
  const judged = metricsFor(scorecard, scenario.expectedBehavior, scenario.expectedOutcome).some(
    (m) => m.type === 'llm_judge',
  );
  if (judged)
    need(
      'judge',
      'an llm_judge metric (or the expectedOutcome) needs a language model for the judge role',
    );
  const mode: SimulationMode = req.mode ?? (scenario.audio?.enabled ? 'audio' : 'text');
  const channels = new Map<string, Channel>();
  for (const agentId of scenario.targetAgents) {
    const stored = await ctx.store.agents.get(agentId);
    const agent = stored && withConfiguration(stored, req.configuration);
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
    const replica = channel === 'replica' ? model('replica') : null;
    if (replica) models.replica = replica;
    channels.set(agentId, channel);
    if (mode === 'audio' && !problem) {
      const audioProblem = await audioCallProblem({
        agent,
        channel,
        websocketUrl: credentialsOf(ctx, agent)?.websocketUrl ?? null,
        speech: ctx.speech,
        scripted: Boolean(scenario.script),
      });
      if (audioProblem)
        problems.push({
          path: req.mode ? 'mode' : 'audio.enabled',
          message: `agent ${agent.name} (${agentId}) cannot take an audio call: ${audioProblem}`,
        });
    }
  }
  const personas = await scenarioPersonas(ctx, workspaceId, scenario);
  if (mode === 'audio') problems.push(...(await voiceProblems(personas, ctx.speech)));
  else problems.push(...textModeProblems(scenario, req), ...behaviourProblems(personas));
  return { workspaceId, scenario, variables, channels, mode, problems, models };
}

/**
 * What only an audio call can do, asked of a text simulation: a line, a seed, script lines that
 * barge in, keep silent, send digits or hang up.
 */
function textModeProblems(scenario: Scenario, req: ExecutionRequest): ErrorDetail[] {
  const why = 'only audio simulations have it; run with mode "audio"';
  const problems: ErrorDetail[] = [];
  if (req.line !== undefined) problems.push({ path: 'line', message: `a line: ${why}` });
  if (req.seed !== undefined) problems.push({ path: 'seed', message: `a seed: ${why}` });
  (scenario.script ?? []).forEach((line, i) => {
    for (const act of SCRIPT_LINE_ACTS)
      if (line[act] !== undefined)
        problems.push({ path: `script[${i}].${act}`, message: `${act}: ${why}` });
  });
  return problems;
}

/**
 * Personas that would barge in, keep silent, backchannel or hang up: acts of an audio call that a
 * text simulation cannot perform, refused rather than quietly left out (the run would not be the
 * test its author wrote). A behaviour with probability 0 never happens, so it does not count.
 */
function behaviourProblems(personas: Persona[]): ErrorDetail[] {
  return personas.flatMap((p) => {
    const acts = Object.entries(p.behaviours ?? {})
      .filter(([, b]) => b !== undefined && b.probability > 0)
      .map(([act]) => act);
    return acts.length === 0
      ? []
      : [
          {
            path: `personas.${p.id}.behaviours`,
            message: `persona ${p.id} behaves (${acts.join(', ')}) only on audio calls; run with mode "audio"`,
          },
        ];
  });
}

/** The scenario's personas, as the simulations will play them. */
async function scenarioPersonas(
  ctx: ExecutionDeps,
  workspaceId: string,
  scenario: Scenario,
): Promise<Persona[]> {
  const personas = [];
  for (const id of scenario.personas) {
    const p = await ctx.store.personas.profile(workspaceId, id);
    if (p) personas.push(p);
  }
  return personas;
}

const refuse = (problems: ErrorDetail[]): AppError =>
  new AppError(
    'validation_error',
    400,
    `Nothing can run: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    problems,
  );

/**
 * The URLs an execution will call that refuse connections, or that a team server may not reach
 * (internal addresses): agents at their own URL or a provider base URL, and the models of each
 * role it needs. Only a refused connection counts (a slow or far host is left to the
 * simulation's own timeouts).
 */
async function unreachable(ctx: ExecutionDeps, plan: ExecutionPlan): Promise<ErrorDetail[]> {
  const targets: { path: string; what: string; url: string }[] = [];
  for (const [agentId, channel] of plan.channels) {
    if (channel === 'replica') continue;
    const agent = await ctx.store.agents.get(agentId);
    const url = agent && (credentialsOf(ctx, agent)?.baseUrl ?? null);
    if (agent && url) targets.push({ path: `agents.${agentId}`, what: `agent ${agent.name}`, url });
  }
  for (const [role, conn] of Object.entries(plan.models))
    if (conn.baseUrl)
      targets.push({ path: `settings.llm.${role}`, what: `the ${role} model`, url: conn.baseUrl });
  const found = await Promise.all(targets.map((t) => unreachableAt(t.url)));
  return targets.flatMap((t, i) => {
    const why = found[i];
    if (!why) return [];
    const message = 'blocked' in why ? `: ${why.blocked.message}` : ' refuses connections';
    return [{ path: t.path, message: `${t.what} at ${t.url}${message}` }];
  });
}

/** The agent's credentials, or null when it has none or they do not open. */
function credentialsOf(ctx: ExecutionDeps, agent: AgentRecord) {
  try {
    return openCredentials(ctx.secrets, agent);
  } catch {
    return null; // unreadable credentials are reported by the channel check and the sync
  }
}

/** What every simulation of an execution tested: hashes of its scenario and scorecard, each agent. */
async function identityOf(
  ctx: ExecutionDeps,
  plan: ExecutionPlan,
  configuration: ExecutionRequest['configuration'],
) {
  const { scenario } = plan;
  const scorecard = scenario.scorecard
    ? ((await ctx.store.scorecards.get(plan.workspaceId, scenario.scorecard)) ?? null)
    : null;
  const agents = new Map<string, AgentConfigUsed>();
  for (const [agentId, channel] of plan.channels) {
    const stored = await ctx.store.agents.get(agentId);
    const agent = stored && withConfiguration(stored, configuration);
    if (agent)
      agents.set(
        agentId,
        await agentConfigUsed(ctx.store, {
          agent,
          channel,
          replicaModel: plan.models.replica?.model ?? null,
          credentials: credentialsOf(ctx, agent),
        }),
      );
  }
  return {
    scenario_hash: scenarioHash(scenario, plan.variables),
    scorecard_hash: scorecardHash(scorecard, scenario),
    agents,
  };
}

/**
 * One simulation per persona, target agent and run, numbered 1..runs in its group. Audio runs
 * take their seeds from the execution's root seed (drawn when none is given), run r the same seed
 * in every group and in every execution with that root.
 */
function plannedSimulations(
  plan: ExecutionPlan,
  req: ExecutionRequest,
  identity: Awaited<ReturnType<typeof identityOf>>,
  at: { now: number; rootSeed: number },
) {
  const { scenario, channels } = plan;
  const choice = req.line ?? scenario.audio?.line;
  return scenario.personas.flatMap((persona_id) =>
    scenario.targetAgents.flatMap((agent_id) =>
      Array.from({ length: req.runs }, (_, i) => ({
        id: newId('sim', at.now),
        persona_id,
        agent_id,
        channel: channels.get(agent_id)!,
        mode: plan.mode,
        line: plan.mode === 'audio' ? simulationLine(choice, runSeed(at.rootSeed, i + 1)) : null,
        run: i + 1,
        scenario_hash: identity.scenario_hash,
        scorecard_hash: identity.scorecard_hash,
        agent_config: identity.agents.get(agent_id) ?? null,
      })),
    ),
  );
}

/** The line an execution records: audio ones always, with the root seed its runs derive from. */
function executionLine(plan: ExecutionPlan, req: ExecutionRequest, rootSeed: number) {
  if (plan.mode === 'audio') return { choice: req.line ?? null, seed: rootSeed };
  return req.line !== undefined || req.seed !== undefined
    ? { choice: req.line ?? null, seed: req.seed ?? null }
    : null;
}

/**
 * An execution built and checked, not yet queued: experiments queue several at once, their
 * simulations taking turns (store/executions.ts insertInterleaved).
 */
export interface PreparedExecution {
  batch: ExecutionBatch;
  answer: Awaited<ReturnType<typeof createExecution>>;
}

async function createExecution(ctx: ExecutionDeps, plan: ExecutionPlan, req: ExecutionRequest) {
  const { batch, answer } = await prepareExecution(ctx, plan, req);
  await ctx.store.simulations.createExecution(batch.e, batch.sims);
  ctx.runner.enqueued();
  return answer;
}

async function prepareExecution(ctx: ExecutionDeps, plan: ExecutionPlan, req: ExecutionRequest) {
  const { scenario } = plan;
  const now = ctx.clock.now();
  const identity = await identityOf(ctx, plan, req.configuration);
  const rootSeed = req.seed ?? randomSeed();
  const sims = plannedSimulations(plan, req, identity, { now, rootSeed });
  const id = newId('exe', now);
  const { concurrency } = await simulationSettings(ctx.store, ctx.simulationDefaults);
  const estimate = new Date(now + Math.ceil(sims.length / concurrency) * 30_000).toISOString();
  const cap = await costCap(ctx, plan, req);
  if (cap.problems.length) throw refuse(cap.problems);
  const batch: ExecutionBatch = {
    e: {
      ...cap.budget,
      id,
      workspaceId: plan.workspaceId,
      scenarioId: scenario.id,
      variables: plan.variables,
      runs: req.runs,
      channel: req.channel ?? null,
      mode: req.mode ?? null,
      line: executionLine(plan, req, rootSeed),
      scenario_hash: identity.scenario_hash,
      scorecard_hash: identity.scorecard_hash,
      agent_config_hashes: scenario.targetAgents.flatMap((a) => {
        const used = identity.agents.get(a);
        return used ? [used.hash] : [];
      }),
      created_at: isoNow(ctx.clock),
      estimated_completion: estimate,
    },
    sims,
  };
  const answer = {
    id,
    scenario_id: scenario.id,
    status: 'queued' as const,
    simulations_created: sims.length,
    estimated_completion: estimate,
  };
  return { batch, answer };
}

/**
 * Starts an execution: one simulation per persona, target agent and run, queued for the runner.
 * Schedules come here: a scheduled run is exactly a manual one, minus the reachability check (a
 * monitor must record an unreachable agent as failed simulations, not skip the run).
 * Refuses (400, every problem listed) whatever would keep the simulations from running.
 */
export async function startExecution(
  ctx: ExecutionDeps,
  workspaceId: string,
  scenarioId: string,
  req: ExecutionRequest,
) {
  const plan = await planExecution(ctx, workspaceId, scenarioId, req);
  if (plan.problems.length) throw refuse(plan.problems);
  return createExecution(ctx, plan, req);
}

/** The execute operation: every check, the URLs that refuse connections included. */
export async function startCheckedExecution(
  ctx: ExecutionDeps,
  workspaceId: string,
  scenarioId: string,
  req: ExecutionRequest,
) {
  const plan = await planExecution(ctx, workspaceId, scenarioId, req);
  const problems = [...plan.problems, ...(await unreachable(ctx, plan))];
  if (problems.length) throw refuse(problems);
  return createExecution(ctx, plan, req);
}

/**
 * Every check of the execute operation, and the execution built but not queued (the caller queues
 * it: an experiment queues its sides together). Refuses as startCheckedExecution does.
 */
export async function prepareCheckedExecution(
  ctx: ExecutionDeps,
  workspaceId: string,
  scenarioId: string,
  req: ExecutionRequest,
): Promise<PreparedExecution> {
  const plan = await planExecution(ctx, workspaceId, scenarioId, req);
  const problems = [...plan.problems, ...(await unreachable(ctx, plan))];
  if (problems.length) throw refuse(problems);
  return prepareExecution(ctx, plan, req);
}
