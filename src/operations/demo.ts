/**
 * `POST /v1/demo`: a first green run in one call. It makes (or finds again) the "Demo" workspace
 * with the built-in demo agent, a persona, a scorecard that needs no model and a scripted
 * scenario, then executes the scenario in text, audio or both. What it made is remembered in the
 * settings (key `demo`), so a second call reuses all of it and only starts new executions.
 */
import { z } from 'zod';
import { isoNow } from '../clock.js';
import { DEMO_NAMES } from '../domain/demo.js';
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import { outboundGuard } from '../net/guard.js';
import { sealCredentials } from '../providers/credentials.js';
import { startCheckedExecution } from '../simulations/start.js';
import type { Agent } from '../store/agents.js';
import { accessOperations } from './access.js';
import { DEMO_PERSONA, DEMO_SCENARIO, DEMO_SCORECARD, DEMO_SNAPSHOT } from './demo-resources.js';
import { personaOperations } from './personas.js';
import { scenarioOperations } from './scenarios.js';
import { scorecardOperations } from './scorecards.js';
import { defineOperation, withStatus, type Operation, type OperationContext } from './types.js';

const DEMO_MODES = ['text', 'audio', 'both'] as const;

/** The ids the demo made, kept in the settings under this key. */
const SETTINGS_KEY = 'demo';
interface DemoIds {
  workspaceId: string;
  personaId: string;
  scorecardId: string;
  scenarioId: string;
}

/** Runs one of the catalogue's own operations, with its validation, for the same caller. */
async function run<T>(ops: Operation[], name: string, input: object, ctx: OperationContext) {
  const op = ops.find((o) => o.name === name)!;
  return (await op.handler(op.input.parse(input), ctx)) as T;
}

/** The demo agent, made or made active again (a disconnected one is connected anew). */
async function demoAgent(ctx: OperationContext): Promise<Agent> {
  const now = isoNow(ctx.clock);
  // The agent is reached where the engine serves it; its sealed credentials only mark it connected.
  const credentials = sealCredentials(ctx.secrets, { format: 'simple' });
  const found = await ctx.store.agents.findByProvider('demo', 'demo');
  if (found) {
    if (found.status === 'active' && found.credentials) return found;
    return (await ctx.store.agents.update(found.id, {
      status: 'active',
      credentials,
      updated_at: now,
    }))!;
  }
  return ctx.store.agents.insert({
    id: newId('agt', ctx.clock.now()),
    provider: 'demo',
    providerAgentId: 'demo',
    name: DEMO_NAMES.agent,
    status: 'active',
    description: DEMO_SNAPSHOT.description,
    snapshot: DEMO_SNAPSHOT,
    overrides: {},
    channel: 'http',
    credentials,
    tags: ['demo'],
    syncStatus: 'idle',
    lastSyncedAt: now,
    syncError: null,
    callsCursorMs: null,
    created_at: now,
    updated_at: now,
  });
}

/** The demo workspace and what is in it: the ones made before where they still exist. */
async function demoResources(ctx: OperationContext, agentId: string): Promise<DemoIds> {
  const was = await ctx.store.settings.get<DemoIds>(SETTINGS_KEY);
  const workspaceId =
    was && (await ctx.store.workspaces.get(was.workspaceId))
      ? was.workspaceId
      : (
          await run<{ workspace: { id: string } }>(
            accessOperations,
            'workspaces.create',
            { name: DEMO_NAMES.workspace },
            ctx,
          )
        ).workspace.id;
  const ws = { workspace_id: workspaceId };
  const keep = (id: string | undefined, found: unknown) => (id && found ? id : null);
  const personaId =
    keep(was?.personaId, was && (await ctx.store.personas.get(workspaceId, was.personaId))) ??
    (
      await run<{ persona: { id: string } }>(
        personaOperations,
        'personas.create',
        { ...ws, ...DEMO_PERSONA },
        ctx,
      )
    ).persona.id;
  const scorecardId =
    keep(was?.scorecardId, was && (await ctx.store.scorecards.get(workspaceId, was.scorecardId))) ??
    (
      await run<{ scorecard: { id: string } }>(
        scorecardOperations,
        'scorecards.create',
        { ...ws, ...DEMO_SCORECARD },
        ctx,
      )
    ).scorecard.id;
  const scenario = {
    ...DEMO_SCENARIO,
    personas: [personaId],
    targetAgents: [agentId],
    scorecard: scorecardId,
  };
  const existing = was && (await ctx.store.scenarios.get(workspaceId, was.scenarioId));
  const scenarioId = existing
    ? (
        await run<{ scenario: { id: string } }>(
          scenarioOperations,
          'scenarios.update',
          { ...ws, scenario_id: existing.id, ...scenario },
          ctx,
        )
      ).scenario.id
    : (
        await run<{ scenario: { id: string } }>(
          scenarioOperations,
          'scenarios.create',
          { ...ws, ...scenario },
          ctx,
        )
      ).scenario.id;
  const ids = { workspaceId, personaId, scorecardId, scenarioId };
  await ctx.store.settings.set(SETTINGS_KEY, ids, isoNow(ctx.clock));
  return ids;
}

export const demoOperations = [
  defineOperation({
    name: 'demo.run',
    summary:
      'Run the demo: make (or reuse) the Demo workspace with the built-in demo agent, a persona, a scorecard that needs no model and a scripted scenario, then execute it (202)',
    http: { method: 'POST', path: '/v1/demo', status: 202 },
    refuseTokens: 'API key required to run the demo (it makes a workspace and an agent)',
    body: {
      mode: z
        .enum(DEMO_MODES)
        .optional()
        .describe('text, audio, or both (the default): one execution per mode'),
    },
    output: z.object({
      workspaceId: z.string(),
      agentId: z.string(),
      scenarioId: z.string(),
      scorecardId: z.string(),
      executionIds: z.array(z.string()).describe('One per mode run, text first'),
    }),
    async handler({ mode }, ctx) {
      // Served on loopback: a team server calls it only where its guard lets loopback through.
      if (outboundGuard()?.refusal('127.0.0.1'))
        throw conflict(
          "The demo agent is served on this machine's loopback, which this team server never calls: run the demo on the desktop or a single-user `callbench serve` (or let loopback through with CALLBENCH_OUTBOUND_ALLOW=127.0.0.1)",
        );
      const agent = await demoAgent(ctx);
      const ids = await demoResources(ctx, agent.id);
      const modes = mode === 'text' || mode === 'audio' ? [mode] : (['text', 'audio'] as const);
      const executionIds: string[] = [];
      for (const m of modes) {
        const execution = await startCheckedExecution(ctx, ids.workspaceId, ids.scenarioId, {
          variables: {},
          runs: 1,
          mode: m,
        });
        executionIds.push(execution.id);
      }
      const { workspaceId, scenarioId, scorecardId } = ids;
      return withStatus(202, {
        workspaceId,
        agentId: agent.id,
        scenarioId,
        scorecardId,
        executionIds,
      });
    },
  }),
];
