import type { Prices } from '../domain/prices.js';
import type { ModelUsage, Usage } from '../domain/simulations.js';
import type { ErrorDetail } from '../errors.js';
import { ROLES, type Role } from '../llm/types.js';
import type { AgentRecord } from '../store/agents.js';
import type { Persona } from '../store/personas.js';
import { speechConnections } from '../voice/speech-settings.js';
import { addCosts, callCost, pricesOf, sttCost, tokenCost, ttsCost, type Cost } from './pricing.js';
import { simulationSettings } from './settings.js';
import type { SimulationMode } from '../domain/audio.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { ModelConnection } from '../llm/types.js';
import type { Store } from '../store/index.js';
import type { Scenario } from '../store/scenarios.js';
import type { SimulationSettings } from './settings.js';

/**
 * What an execution would cost before it runs, at today's prices: its simulations' model tokens
 * (the mean of the scenario's past completed simulations, by role; a scenario never run: its turn
 * limit at the default tokens below) and, on audio calls, speech and the provider's charge for
 * the whole `maxDurationMs`. The spend cap reserves the dearest simulation's share as each starts.
 */

/**
 * Tokens each role spends per agent reply of a scenario that never ran (the judge reads the
 * transcript as it grows, so it is counted per reply too): the estimate is maxTurns × these.
 */
export const DEFAULT_TOKENS_PER_TURN: Record<Role, { input: number; output: number }> = {
  caller: { input: 1_000, output: 60 },
  judge: { input: 1_500, output: 100 },
  replica: { input: 1_500, output: 120 },
};

/** Characters a simulated caller says in a minute of an audio call (about 150 words). */
export const TTS_CHARACTERS_PER_MINUTE = 900;

/** What pricing needs of an execution's plan (start.ts planExecution makes one). */
export interface ExecutionPlan {
  workspaceId: string;
  scenario: Pick<Scenario, 'id' | 'personas' | 'targetAgents' | 'maxTurns' | 'maxDurationMs'>;
  mode: SimulationMode;
  /** The model of each role in play. */
  models: Partial<Record<Role, ModelConnection>>;
}

/** What pricing reads: the stored prices, usage, settings and speech connections. */
interface ExecutionDeps {
  store: Store;
  secrets: SecretBox;
  simulationDefaults: SimulationSettings;
}

export interface CostEstimate extends Cost {
  simulations: number;
  /** The dearest simulation's estimate: what each reserves of a cap as it starts. */
  per_simulation_usd: number | null;
}

/** Each role's mean tokens per simulation over past usage, at the model that plays it now. */
function meanTokens(past: Usage[], models: ExecutionPlan['models']): Omit<ModelUsage, 'role'>[] {
  return ROLES.flatMap((role) => {
    const used = past.flatMap((u) => u.by_model.filter((m) => m.role === role));
    const model = models[role]?.model ?? used[0]?.model;
    if (!used.length || !model) return [];
    const mean = (f: 'llm_calls' | 'input_tokens' | 'cached_input_tokens' | 'output_tokens') =>
      used.reduce((sum, m) => sum + m[f], 0) / past.length;
    return [
      {
        model,
        llm_calls: mean('llm_calls'),
        input_tokens: mean('input_tokens'),
        cached_input_tokens: mean('cached_input_tokens'),
        output_tokens: mean('output_tokens'),
      },
    ];
  });
}

/** A never-run scenario's tokens: every role in play, at its default per reply, maxTurns times. */
function defaultTokens(models: ExecutionPlan['models'], maxTurns: number) {
  return ROLES.flatMap((role) => {
    const model = models[role]?.model;
    if (!model) return [];
    const { input, output } = DEFAULT_TOKENS_PER_TURN[role];
    return [
      {
        model,
        llm_calls: maxTurns,
        input_tokens: input * maxTurns,
        cached_input_tokens: 0,
        output_tokens: output * maxTurns,
      },
    ];
  });
}

/** One audio call's speech and line at its longest: the whole maxDurationMs. */
async function audioCallCost(
  ctx: ExecutionDeps,
  prices: Prices,
  call: { agent: AgentRecord; persona: Persona; maxDurationMs: number },
): Promise<Cost> {
  const seconds = call.maxDurationMs / 1000;
  const connections = await speechConnections(ctx.store, ctx.secrets);
  const engine = call.persona.voice?.engine ?? 'system';
  const ttsModel =
    engine === 'openai' || engine === 'elevenlabs'
      ? (connections[engine]?.model ?? engine)
      : engine;
  return addCosts(
    callCost(call.agent.provider, seconds, prices),
    ttsCost(engine, ttsModel, Math.ceil((seconds / 60) * TTS_CHARACTERS_PER_MINUTE), prices),
    // Transcribed only where the agent's audio carries no text: counted whenever it is set up.
    connections.stt ? sttCost('openai', connections.stt.model, seconds, prices) : zero,
  );
}

const zero: Cost = { cost_usd: 0, unpriced_models: [] };

/** The plan's personas and agents, as stored now (ones deleted since are left out). */
async function pairsOf(ctx: ExecutionDeps, plan: ExecutionPlan) {
  const pairs: { persona: Persona; agent: AgentRecord }[] = [];
  for (const personaId of plan.scenario.personas) {
    const persona = await ctx.store.personas.profile(plan.workspaceId, personaId);
    for (const agentId of plan.scenario.targetAgents) {
      const agent = await ctx.store.agents.get(agentId);
      if (persona && agent) pairs.push({ persona, agent });
    }
  }
  return pairs;
}

/** What the planned execution would cost at today's prices, and its dearest simulation. */
export async function estimateExecution(
  ctx: ExecutionDeps,
  plan: ExecutionPlan,
  req: { runs: number },
): Promise<CostEstimate> {
  const prices = await pricesOf(ctx.store);
  const limits = await simulationSettings(ctx.store, ctx.simulationDefaults);
  const maxTurns = plan.scenario.maxTurns ?? limits.maxTurns;
  const maxDurationMs = plan.scenario.maxDurationMs ?? limits.maxDurationMs;
  const past = await ctx.store.simulations.budgets.pastUsage(plan.scenario.id);
  const tokens = past.length ? meanTokens(past, plan.models) : defaultTokens(plan.models, maxTurns);
  const llm = addCosts(...tokens.map((t) => tokenCost(t, prices)));
  const perPair: Cost[] = [];
  for (const { persona, agent } of await pairsOf(ctx, plan))
    perPair.push(
      plan.mode === 'audio'
        ? addCosts(llm, await audioCallCost(ctx, prices, { agent, persona, maxDurationMs }))
        : llm,
    );
  const total = addCosts(...Array.from({ length: req.runs }, () => perPair).flat());
  const known = total.cost_usd !== null;
  return {
    simulations: perPair.length * req.runs,
    ...total,
    per_simulation_usd: known ? Math.max(0, ...perPair.map((c) => c.cost_usd ?? 0)) : null,
  };
}

/**
 * A cap asked for: what each simulation reserves of it, or why it cannot hold (a model, engine or
 * provider in play with no price: its cost could not be counted against the cap).
 */
export async function costCap(
  ctx: ExecutionDeps,
  plan: ExecutionPlan,
  req: { runs: number; maxCostUsd?: number },
): Promise<{
  problems: ErrorDetail[];
  budget: { max_cost_usd: number; budget_per_simulation_usd: number } | null;
}> {
  if (req.maxCostUsd === undefined) return { problems: [], budget: null };
  const estimate = await estimateExecution(ctx, plan, req);
  if (estimate.per_simulation_usd === null)
    return {
      problems: [
        {
          path: 'maxCostUsd',
          message: `a cost cap needs a price for everything in play; unpriced: ${estimate.unpriced_models.join(', ')} (PATCH /v1/settings {prices})`,
        },
      ],
      budget: null,
    };
  return {
    problems: [],
    budget: {
      max_cost_usd: req.maxCostUsd,
      budget_per_simulation_usd: estimate.per_simulation_usd,
    },
  };
}
