import { z } from 'zod';
import { isoNow } from '../clock.js';
import { AGENT_PROVIDERS, Agent, AgentConfiguration, AgentTool } from '../domain/agents.js';
import { DemoKnobs } from '../domain/demo.js';
import { AudioFigures } from '../domain/audio.js';
import { AppError, conflict, invalidField, notFound, validationError } from '../errors.js';
import { openCredentials } from '../providers/credentials.js';
import { connectHttpAgent, probeHttpAgent } from '../providers/http-agent.js';
import { channelProblem } from '../simulations/start.js';
import { deepMerge } from '../providers/diff.js';
import type { PROVIDERS } from '../providers/registry.js';
import { agentTools, agentView } from '../providers/view.js';
import { agentAudio } from '../voice/audio-plan.js';
import type { AgentRecord } from '../store/agents.js';
import { agentAnalytics } from '../simulations/agent-analytics.js';
import { productionAnalytics } from '../simulations/production-analytics.js';
import { CallFilterQuery, ProductionFiguresSchema } from './production-reads.js';
import { AgentTrendBucket, AnalyticsWindow } from '../domain/trends.js';
import {
  CommaList,
  ConnectionTestSchema,
  Deleted,
  Id,
  Paging,
  QueryBoolean,
  deleted,
  countedNames,
} from './common.js';
import {
  AgentErrorSchema,
  AgentSchema,
  AgentToolEntry,
  AgentVersionSchema,
  CallSchema,
} from './agent-schemas.js';
import { defineOperation, withStatus, type OperationContext } from './types.js';
import { assertVariantsUnused, refuseOnVariant } from './variant-rules.js';
import { checkedRegressionSuite, RegressionSuiteField } from './regression-suite.js';
import { checkedMonitoring, MonitoringPatch, withEvaluations } from './monitoring.js';

const AgentParams = { agent_id: Id };

/** The same fields, with unknown ones refused (each names itself in the error's details). */
const strict = <S extends z.ZodRawShape>(o: z.ZodObject<S>) => z.strictObject(o.shape);

/** Local overrides of the configuration, with the rules of its values; null clears one. */
export const ConfigurationPatch = strict(
  AgentConfiguration.extend({
    model: strict(
      AgentConfiguration.shape.model
        .extend({
          provider: z.string().max(100).nullable(),
          name: z.string().max(200).nullable(),
          temperature: z.number().min(0).max(2).nullable(),
          maxTokens: z.number().int().positive().max(1_000_000).nullable(),
        })
        .partial(),
    ),
    voice: strict(
      AgentConfiguration.shape.voice
        .extend({
          provider: z.string().max(100).nullable(),
          voiceId: z.string().max(200).nullable(),
          stability: z.number().min(0).max(1).nullable(),
          similarityBoost: z.number().min(0).max(1).nullable(),
        })
        .partial(),
    ),
    prompt: z.string().max(200_000).nullable(),
    firstMessage: z.string().max(10_000).nullable(),
    // A tool is replaced whole: its name is required, the rest may be left out (stored as null,
    // as the answer's tool record has every field).
    tools: z
      .array(
        strict(
          AgentTool.extend({
            name: z.string().min(1).max(128),
            description: z.string().max(5_000).nullable().default(null),
            type: z.string().nullable().default(null),
            endpoint: z.string().max(2_048).nullable().default(null),
            method: z.string().nullable().default(null),
            auth: z.string().default('none'),
          }),
        ),
      )
      .max(100),
    demo: DemoKnobs.describe("The demo agent's knobs (provider demo only)"),
  }).partial(),
);

export async function getAgent(ctx: OperationContext, id: string): Promise<Agent> {
  const agent = await ctx.store.agents.get(id);
  if (!agent) throw notFound('agent', id);
  return agent;
}

/**
 * The providers' adapters, then agents of our own. The registry keeps the adapters' list and the
 * domain the agent's; `satisfies` fails to compile when the two drift apart (or change order,
 * which the connect error's list shows).
 */
const ALL_PROVIDERS = AGENT_PROVIDERS satisfies readonly [...typeof PROVIDERS, 'http', 'demo'];
/** The demo agent is not connected: the engine serves it, and POST /v1/demo makes it. */
const PROVIDER_CHOICES = ALL_PROVIDERS.filter((p) => p !== 'demo');

/**
 * An agent as answered: its view, and whether it takes audio calls (its provider's transport and
 * its connection, read in src/voice, which src/providers may not import).
 */
export const answerOf = async (ctx: OperationContext, agent: AgentRecord) => ({
  ...(await agentView(ctx.store, agent)),
  audio: agentAudio(ctx.secrets, agent),
});

/** What agents.connect takes (a suite's callbench.yaml agents are written from it too). */
export const AgentConnectBody = {
  provider: z
    .string()
    .min(1)
    .max(50)
    .describe(`One of ${PROVIDER_CHOICES.join(', ')}`),
  agent_id: z.string().min(1).max(256).describe("The agent's id at the provider"),
  credentials: z.strictObject({
    api_key: z
      .string()
      .min(1)
      .max(4_096)
      .optional()
      .describe('Required for providers; for http agents, sent as a bearer token when given'),
    base_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('For regional hosts; for http agents, the URL of the agent (required)'),
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'http agents in the openai format: the model name sent with each request (default "default")',
      ),
    websocket_url: z
      .url({ protocol: /^wss?$/ })
      .optional()
      .describe(
        'http agents: where they take audio calls, speaking Twilio Media Streams (Pipecat, LiveKit and most home-built stacks)',
      ),
  }),
  format: z
    .enum(['openai', 'simple'])
    .optional()
    .describe(
      'http agents only: "openai" (a chat completions API; /chat/completions is appended to a base URL) or "simple" ({messages} -> {reply, ended?}; the default)',
    ),
};

export const agentOperations = [
  defineOperation({
    name: 'agents.connect',
    summary:
      'Connect an agent from its provider (201), or answer the already connected one (200) with its credentials renewed',
    http: { method: 'POST', path: '/v1/agents/connect', status: 201 },
    body: AgentConnectBody,
    output: AgentSchema,
    async handler({ provider, agent_id, credentials, format }, ctx) {
      if (provider === 'demo')
        throw invalidField(
          'provider',
          'the demo agent is built in and served by the engine: POST /v1/demo makes it (and runs it)',
        );
      if (!(PROVIDER_CHOICES as readonly string[]).includes(provider)) {
        throw new AppError(
          'validation_error',
          400,
          `Unknown provider '${provider}': supported are ${PROVIDER_CHOICES.join(', ')}`,
          [{ path: 'provider', message: `must be one of: ${PROVIDER_CHOICES.join(', ')}` }],
        );
      }
      if (provider === 'http') {
        if (!credentials.base_url)
          throw invalidField(
            'credentials.base_url',
            'is required for an agent reached over http (the URL of its endpoint)',
          );
        const { agent, created } = await connectHttpAgent(ctx.store, ctx.secrets, ctx.clock, {
          name: agent_id,
          baseUrl: credentials.base_url,
          apiKey: credentials.api_key,
          format: format ?? 'simple',
          model: credentials.model,
          websocketUrl: credentials.websocket_url,
        });
        return withStatus(created ? 201 : 200, await answerOf(ctx, agent));
      }
      if (format) throw invalidField('format', 'applies to agents with provider "http" only');
      if (credentials.model)
        throw invalidField('credentials.model', 'applies to agents with provider "http" only');
      if (credentials.websocket_url)
        throw invalidField(
          'credentials.websocket_url',
          'applies to agents with provider "http" only (providers\' audio is reached through their API)',
        );
      if (!credentials.api_key)
        throw new AppError('validation_error', 400, 'credentials.api_key is required', [
          { path: 'credentials.api_key', message: 'is required' },
        ]);
      const { agent, created } = await ctx.sync.connect({
        provider: provider as (typeof PROVIDERS)[number],
        agentId: agent_id,
        apiKey: credentials.api_key,
        baseUrl: credentials.base_url,
      });
      return withStatus(created ? 201 : 200, await answerOf(ctx, agent));
    },
  }),
  defineOperation({
    name: 'agents.list',
    summary: 'Connected agents; `tags` keeps those carrying every listed tag',
    http: { method: 'GET', path: '/v1/agents' },
    query: { tags: CommaList.optional() },
    output: z.object({ agents: z.array(AgentSchema), total: z.number().int() }),
    async handler({ tags }, ctx) {
      const wanted = (tags ?? []).map((t) => t.toLowerCase());
      const agents = (await ctx.store.agents.list()).filter((a) =>
        wanted.every((t) => a.tags.some((x) => x.toLowerCase() === t)),
      );
      return {
        agents: await Promise.all(agents.map((a) => answerOf(ctx, a))),
        total: agents.length,
      };
    },
  }),
  defineOperation({
    name: 'agents.get',
    summary:
      'An agent: the effective configuration (synced snapshot plus local overrides), stats and sync state',
    http: { method: 'GET', path: '/v1/agents/:agent_id' },
    params: AgentParams,
    output: AgentSchema,
    async handler({ agent_id }, ctx) {
      return answerOf(ctx, await getAgent(ctx, agent_id));
    },
  }),
  defineOperation({
    name: 'agents.update',
    summary:
      'Local overrides (deep-merged; never written back to the provider, kept across syncs), tags (replaced) and channel',
    http: { method: 'PATCH', path: '/v1/agents/:agent_id' },
    params: AgentParams,
    body: {
      configuration: ConfigurationPatch.optional(),
      tags: z.array(z.string().trim().min(1).max(64)).max(50).optional(),
      channel: Agent.shape.channel.unwrap().optional(),
      regressionSuite: RegressionSuiteField,
      monitoring: MonitoringPatch,
    },
    output: AgentSchema,
    async handler({ agent_id, configuration, tags, channel, regressionSuite, monitoring }, ctx) {
      const agent = await getAgent(ctx, agent_id);
      const suite =
        regressionSuite === undefined
          ? undefined
          : await checkedRegressionSuite(ctx, agent, regressionSuite);
      const monitored = await checkedMonitoring(ctx, agent, monitoring);
      if (channel) {
        // The replica model may be configured later: only what the agent itself rules out is refused.
        const problem =
          agent.parentId && channel !== 'replica'
            ? 'a variant runs on the replica channel only'
            : channelProblem({ ...agent, status: 'active' }, channel, () => true);
        if (problem) throw invalidField('channel', problem);
      }
      if (configuration?.demo && agent.provider !== 'demo')
        throw invalidField('configuration.demo', 'applies to the demo agent only (provider demo)');
      if (configuration && agent.provider === 'http')
        throw invalidField(
          'configuration',
          'an agent reached at its own URL has no configuration here to override',
        );
      const overrides = configuration
        ? deepMerge(agent.overrides, { configuration })
        : agent.overrides;
      return answerOf(
        ctx,
        (await ctx.store.agents.update(agent_id, {
          overrides,
          tags,
          channel,
          regressionSuite: suite,
          ...monitored,
          updated_at: isoNow(ctx.clock),
        }))!,
      );
    },
  }),
  defineOperation({
    name: 'agents.setWorkspaces',
    summary:
      "Share the agent with exactly these workspaces: their workspace tokens may then run it (simulations on its channel use the engine's stored credentials). API keys only",
    http: { method: 'PUT', path: '/v1/agents/:agent_id/workspaces' },
    refuseTokens: 'API key required to share agents with workspaces',
    params: AgentParams,
    body: {
      workspaceIds: z.array(Id).max(1_000).describe('Replaces the list; [] shares with none'),
    },
    output: AgentSchema,
    async handler({ agent_id, workspaceIds }, ctx) {
      await getAgent(ctx, agent_id);
      const agent = await ctx.store.transaction(async (tx) => {
        const known = new Set((await tx.workspaces.list()).map((w) => w.id));
        const details = workspaceIds.flatMap((id, i) =>
          known.has(id)
            ? []
            : [{ path: `workspaceIds[${i}]`, message: `unknown workspace id: ${id}` }],
        );
        if (details.length)
          throw validationError(
            `Unknown workspaces: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
            details,
          );
        await tx.agents.setWorkspaces(agent_id, [...new Set(workspaceIds)]);
        return tx.agents.update(agent_id, { updated_at: isoNow(ctx.clock) });
      });
      return answerOf(ctx, agent!);
    },
  }),
  defineOperation({
    name: 'agents.reset_overrides',
    summary: 'Drop every local override: the synced configuration is in force again',
    http: { method: 'DELETE', path: '/v1/agents/:agent_id/overrides' },
    params: AgentParams,
    output: AgentSchema,
    async handler({ agent_id }, ctx) {
      await getAgent(ctx, agent_id);
      return answerOf(
        ctx,
        (await ctx.store.agents.update(agent_id, {
          overrides: {},
          updated_at: isoNow(ctx.clock),
        }))!,
      );
    },
  }),
  defineOperation({
    name: 'agents.delete',
    summary:
      'Disconnect an agent (its history is kept), or with purge=true delete it with its history',
    http: { method: 'DELETE', path: '/v1/agents/:agent_id' },
    params: AgentParams,
    query: { purge: QueryBoolean.optional() },
    output: Deleted,
    async handler({ agent_id, purge }, ctx) {
      const agent = await getAgent(ctx, agent_id);
      if (purge) {
        await assertVariantsUnused(ctx, agent);
        const users = await ctx.store.scenarios.referencing(null, 'target_agents', agent_id);
        if (users.length)
          throw conflict(
            `Agent '${agent.name}' is a target of ${countedNames(users, 'scenario')}; remove it from them first`,
            { scenarios: users },
          );
        await ctx.store.agents.delete(agent_id);
      } else {
        await ctx.store.agents.update(agent_id, {
          status: 'disconnected',
          credentials: null,
          syncStatus: 'idle',
          updated_at: isoNow(ctx.clock),
        });
      }
      return deleted(agent_id);
    },
  }),
  defineOperation({
    name: 'agents.tools',
    summary:
      "The agent's tools, with success rate (percent) and average response time (ms) from imported calls and our own tool log",
    http: { method: 'GET', path: '/v1/agents/:agent_id/tools' },
    params: AgentParams,
    output: z.object({ tools: z.array(AgentToolEntry) }),
    async handler({ agent_id }, ctx) {
      return { tools: await agentTools(ctx.store, await getAgent(ctx, agent_id)) };
    },
  }),
  defineOperation({
    name: 'agents.testConnection',
    summary:
      "Test the agent's connection now: its provider's API with the stored key, or its own URL",
    http: { method: 'POST', path: '/v1/agents/:agent_id/test-connection' },
    params: AgentParams,
    output: ConnectionTestSchema,
    async handler({ agent_id }, ctx) {
      const agent = await getAgent(ctx, agent_id);
      refuseOnVariant(agent, 'test a connection with');
      if (agent.provider === 'demo') return ctx.demo.test();
      if (agent.provider !== 'http') return ctx.sync.testProvider(agent);
      const creds = openCredentials(ctx.secrets, agent);
      if (!creds?.baseUrl)
        return { ok: false, latencyMs: 0, message: 'the agent has no URL: connect it again' };
      return probeHttpAgent(creds);
    },
  }),
  defineOperation({
    name: 'agents.sync',
    summary: "Sync now (configuration and calls); progress shows on the agent's sync field",
    http: { method: 'POST', path: '/v1/agents/:agent_id/sync', status: 202 },
    params: AgentParams,
    output: AgentSchema,
    async handler({ agent_id }, ctx) {
      const agent = await getAgent(ctx, agent_id);
      refuseOnVariant(agent, 'sync from');
      if (agent.status === 'disconnected')
        throw conflict('This agent is disconnected: connect it again with POST /v1/agents/connect');
      if (agent.provider === 'http')
        throw conflict(
          'This agent is reached at its own URL: there is no provider to sync it from',
        );
      if (agent.provider === 'demo')
        throw conflict(
          'The demo agent is built into Callbench: there is no provider to sync it from',
        );
      void ctx.sync.sync(agent_id);
      return answerOf(ctx, (await ctx.store.agents.get(agent_id))!);
    },
  }),
  defineOperation({
    name: 'agents.calls',
    summary: "The agent's imported calls, newest first",
    http: { method: 'GET', path: '/v1/agents/:agent_id/calls' },
    params: AgentParams,
    query: { ...Paging, ...CallFilterQuery },
    output: z.object({ calls: z.array(CallSchema), total: z.number().int() }),
    async handler({ agent_id, limit, offset, ...filters }, ctx) {
      await getAgent(ctx, agent_id);
      const page = await ctx.store.calls.list(agent_id, limit, offset, filters);
      return { ...page, calls: await withEvaluations(ctx, page.calls) };
    },
  }),
  defineOperation({
    name: 'calls.get',
    summary: 'One imported call, normalised: transcript, tool calls, cost',
    http: { method: 'GET', path: '/v1/calls/:call_id' },
    params: { call_id: Id },
    output: CallSchema,
    async handler({ call_id }, ctx) {
      const call = await ctx.store.calls.get(call_id);
      if (!call) throw notFound('call', call_id);
      return (await withEvaluations(ctx, [call]))[0]!;
    },
  }),
  defineOperation({
    name: 'agents.errors',
    summary:
      "The agent's error log: calls that ended in provider errors, failed tool calls, failed syncs; newest first",
    http: { method: 'GET', path: '/v1/agents/:agent_id/errors' },
    params: AgentParams,
    query: Paging,
    output: z.object({ errors: z.array(AgentErrorSchema), total: z.number().int() }),
    async handler({ agent_id, limit, offset }, ctx) {
      await getAgent(ctx, agent_id);
      return ctx.store.calls.errors(agent_id, limit, offset);
    },
  }),
  defineOperation({
    name: 'agents.versions',
    summary: 'One version per distinct synced configuration, newest first',
    http: { method: 'GET', path: '/v1/agents/:agent_id/versions' },
    params: AgentParams,
    output: z.object({ versions: z.array(AgentVersionSchema) }),
    async handler({ agent_id }, ctx) {
      await getAgent(ctx, agent_id);
      return {
        versions: (await ctx.store.agents.versions(agent_id)).map(({ snapshot: _s, ...v }) => v),
      };
    },
  }),
  defineOperation({
    name: 'agents.analytics',
    summary:
      'Agent analytics by scorecard category over the last `days` (default 30); trend compares with the window before (beyond 5 points)',
    http: { method: 'GET', path: '/v1/agents/:agent_id/analytics' },
    params: AgentParams,
    query: {
      breakdown: z.enum(['category']).optional(),
      days: z.coerce.number().int().min(1).max(365).optional(),
      window: AnalyticsWindow.optional(),
    },
    output: z.object({
      agent: z.string(),
      timeRange: z.string(),
      overallScore: z.number().nullable(),
      simulations: z
        .object({
          total: z.number().int(),
          passed: z.number().int(),
          errored: z.number().int().describe('Ended in error: their own count'),
          judged: z.number().int().describe('With a pass verdict, or errored'),
        })
        .describe("The window's ended simulations of this agent"),
      passRate: z
        .number()
        .nullable()
        .describe('Percent of judged simulations that passed; errored ones count as not passed'),
      categoryBreakdown: z.array(
        z.object({
          category: z.string(),
          score: z.number(),
          trend: z.enum(['improving', 'declining', 'stable']),
          status: z.enum(['good', 'needs_improvement']),
          commonIssues: z.array(z.string()).optional(),
        }),
      ),
      recommendations: z.array(z.string()),
      audio: AudioFigures.nullable().describe(
        "The window's audio simulations of this agent; null when there were none",
      ),
      trend: z
        .array(AgentTrendBucket)
        .describe("The window's simulations bucket by bucket, oldest first (sized to the window)"),
      production: ProductionFiguresSchema,
    }),
    async handler({ agent_id, days, window }, ctx) {
      await getAgent(ctx, agent_id);
      const asked = { days: days ?? 30, window };
      const now = ctx.clock.now();
      return {
        ...(await agentAnalytics(ctx.store, agent_id, asked, now)),
        production: await productionAnalytics(ctx.store, agent_id, asked, now),
      };
    },
  }),
];
