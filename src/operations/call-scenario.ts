import { z } from 'zod';
import { isoNow } from '../clock.js';
import type { Persona } from '../domain/personas.js';
import { Scenario } from '../domain/scenarios.js';
import { invalidField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { draftFromCall } from '../simulations/call-scenario.js';
import { Id } from './common.js';
import { PersonaSchema } from './personas.js';
import { withoutKey } from './suite-key-answers.js';
import { defineOperation, type OperationContext } from './types.js';

/** Scenarios made from production calls carry this tag, so a suite can pick them out. */
const PRODUCTION_TAG = 'production';

/** A new persona of the caller, with the defaults a persona created by hand gets. */
function callerPersona(ctx: OperationContext, draft: { name: string; prompt: string }): Persona {
  const now = isoNow(ctx.clock);
  return {
    id: newId('per', ctx.clock.now()),
    key: null,
    name: draft.name,
    language: 'en',
    emotion: 'neutral',
    difficulty: 'medium',
    backgroundNoise: 'none',
    tags: [PRODUCTION_TAG],
    created_at: now,
    updated_at: now,
    created_by: ctx.caller.user,
    prompt: draft.prompt,
    voice: null,
    noise: null,
    behaviours: null,
  };
}

/** The scenario replaying the call, played by the persona, aimed at the call's agent. */
function callScenario(
  ctx: OperationContext,
  draft: { name: string; prompt: string; script: Scenario['script'] },
  refs: { personaId: string; agentId: string },
): Scenario {
  const now = isoNow(ctx.clock);
  return {
    id: newId('scn', ctx.clock.now()),
    key: null,
    name: draft.name,
    prompt: draft.prompt,
    promptVariables: [],
    personas: [refs.personaId],
    targetAgents: [refs.agentId],
    scorecard: null,
    tags: [PRODUCTION_TAG],
    expectedOutcome: null,
    expectedBehavior: null,
    script: draft.script,
    maxTurns: null,
    maxDurationMs: null,
    audio: null,
    cases: null,
    created_at: now,
    updated_at: now,
    created_by: ctx.caller.user,
  };
}

export const callScenarioOperations = [
  defineOperation({
    name: 'calls.scenario',
    summary:
      "Make a scenario from an imported call in a workspace: a persona of the caller, the caller's turns as the script (each with the agent's reply as its reference), tagged production",
    http: { method: 'POST', path: '/v1/calls/:call_id/scenario', status: 201 },
    params: { call_id: Id },
    body: {
      workspaceId: Id.describe('The workspace the persona and the scenario are created in'),
      name: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe("The scenario's name; default: the agent, the call and its day"),
    },
    output: z.object({ scenario: Scenario.omit({ key: true }), persona: PersonaSchema }),
    async handler({ call_id, workspaceId, name }, ctx) {
      const call = await ctx.store.calls.get(call_id);
      if (!call) throw notFound('call', call_id);
      if (!(await ctx.store.workspaces.get(workspaceId)))
        throw invalidField('workspaceId', `unknown workspace id: ${workspaceId}`);
      const agent = await ctx.store.agents.get(call.agentId);
      const draft = draftFromCall(call, { name: agent?.name ?? call.agentId }, name);
      return ctx.store.transaction(async (tx) => {
        const persona = callerPersona(ctx, draft.persona);
        const { usage_stats: _none, ...stored } = await tx.personas.insert(workspaceId, persona);
        const scenario = callScenario(ctx, draft.scenario, {
          personaId: persona.id,
          agentId: call.agentId,
        });
        await tx.scenarios.insert(workspaceId, scenario);
        return { scenario: withoutKey(scenario), persona: withoutKey(stored) };
      });
    },
  }),
];
