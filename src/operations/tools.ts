import { z } from 'zod';
import { isoNow } from '../clock.js';
import { conflict, notFound, validationError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { Tool, ToolDefinition, ToolVersion, type StoredTool } from '../domain/tools.js';
import { RawToolAnswer } from '../domain/tool-raw.js';
import { AnalyticsWindow, ToolTrendBucket } from '../domain/trends.js';
import type { Store } from '../store/index.js';
import { checkToolDefinition, ToolInput, type ToolInputValue } from '../tools/definition.js';
import { maskConfig, openConfig, sealConfig } from '../tools/secrets.js';
import { DEFAULT_TIMEOUT_MS, executeTool } from '../tools/runtime.js';
import { postgresRoleProblem } from '../tools/database.js';
import { toolAnalytics } from '../tools/analytics.js';
import { FAILURE_TYPES } from '../tools/outcome.js';
import { effectiveConfiguration } from '../providers/view.js';
import { DeletedOrChecked, DryRunQuery, Id, checked, countedNames, deleted } from './common.js';
import { defineOperation, type OperationContext } from './types.js';
import { SuiteKey } from '../domain/suite-keys.js';
import { withKey, withKeys, type Keyed } from './suite-key-answers.js';

/** The answer: the tool record, its secrets masked (see `present`). */
const ToolSchema = Tool.describe(
  'A Tool; secrets in config.auth are masked (last 4 characters at most)',
);

/** GET and list answer the suite key too (stored, or the one an export would give), after the id. */
const KeyedToolSchema = z
  .object({ id: Tool.shape.id, key: SuiteKey, ...Tool.omit({ id: true }).shape })
  .describe(ToolSchema.description ?? '');

/** A version as answered: the record's, its definition (secrets masked) last, as `tool`. */
const ToolVersionSchema = ToolVersion.omit({ definition: true }).extend({ tool: ToolDefinition });

const withoutUndefined = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** The answer form of a stored definition: secrets masked (stored sealed: see the Tool record). */
function present(ctx: OperationContext, def: ToolDefinition): ToolDefinition {
  return def.config ? { ...def, config: maskConfig(def.config, ctx.secrets) } : def;
}

/** The answer of GET and list: the tool with its suite key after its id. */
function keyedToolView(ctx: OperationContext, t: Keyed<StoredTool>): Tool & { key: string } {
  const { id, ...rest } = toolView(ctx, t);
  return { id, key: t.key, ...rest };
}

export function toolView(ctx: OperationContext, t: StoredTool): Tool {
  return {
    id: t.id,
    ...present(ctx, t.definition),
    version: t.version,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

/**
 * Why a PostgreSQL tool's role may not run it (a superuser, or a member of a role that reaches the
 * server's files or programs), found by connecting with the connection as it would be stored (a
 * masked one sent back means the stored one). Run before the store's transaction, which may await
 * nothing but store calls; an unreachable server is checked again at each call instead.
 */
async function connectionProblems(
  ctx: OperationContext,
  input: ToolInputValue,
  current: StoredTool | undefined,
): Promise<ErrorDetail[]> {
  const config = input.config;
  if (input.type !== 'database' || config?.driver !== 'postgres') return [];
  if (typeof config.connection !== 'string') return [];
  const previous = current?.definition.config;
  const clear = openConfig(sealConfig(config, previous, ctx.secrets), ctx.secrets);
  const timeoutMs = typeof config.timeoutMs === 'number' ? config.timeoutMs : DEFAULT_TIMEOUT_MS;
  // Saving waits for this: a server that does not answer soon is checked at each call instead.
  const problem = await postgresRoleProblem(String(clear?.connection), Math.min(timeoutMs, 5_000));
  return problem ? [{ path: 'config.connection', message: problem }] : [];
}

/**
 * Validates a definition against the store (steps, name) and seals its secrets; `found` are the
 * problems checked before the transaction, reported with the others.
 */
async function prepare(
  ctx: OperationContext,
  store: Store,
  input: ToolInputValue,
  { current, found }: { current?: StoredTool; found: ErrorDetail[] },
): Promise<ToolDefinition> {
  // Steps are checked (and cycles looked for) against every stored tool, read once.
  const stored = new Map((await store.tools.list()).map((t) => [t.name, t.definition]));
  const lookup = (name: string) => stored.get(name) as { steps?: { tool: string }[] } | undefined;
  const checked = checkToolDefinition(input, lookup);
  const { definition } = checked;
  const details = [...checked.details, ...found];
  if (details.length)
    throw validationError(
      `Invalid tool: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
      details,
    );
  const owner = await store.tools.findByName(definition.name);
  if (owner && owner.id !== current?.id)
    throw conflict(`A tool named '${definition.name}' already exists`, {
      name: definition.name,
      id: owner.id,
    });
  if (current && current.name !== definition.name) {
    const users = await store.tools.compositesUsing(current.name);
    if (users.length)
      throw conflict(
        `Tool '${current.name}' is a step of ${users.join(', ')}; it cannot be renamed`,
        { composites: users },
      );
  }
  const sealed = sealConfig(definition.config, current?.definition.config, ctx.secrets);
  return withoutUndefined({
    ...definition,
    config: sealed && withoutUndefined(sealed),
  });
}

async function findTool(store: Store, ref: string): Promise<StoredTool> {
  const tool = await store.tools.find(ref);
  if (!tool) throw notFound('tool', ref);
  return tool;
}

/** The agents whose effective configuration (synced, with our overrides) lists the tool by name. */
async function agentsListing(store: Store, name: string): Promise<{ id: string; name: string }[]> {
  const agents = await store.agents.list();
  return agents
    .filter((agent) => effectiveConfiguration(agent).tools.some((t) => t.name === name))
    .map((agent) => ({ id: agent.id, name: agent.name }));
}

const ToolRef = { tool: Id.describe('Tool id or name') };

export const toolOperations = [
  defineOperation({
    name: 'tools.create',
    summary: 'Create a tool; its first version is recorded',
    http: { method: 'POST', path: '/v1/tools', status: 201 },
    body: ToolInput,
    output: ToolSchema,
    async handler(input, ctx) {
      const found = await connectionProblems(ctx, input, undefined);
      return ctx.store.transaction(async (tx) => {
        const definition = await prepare(ctx, tx, input, { found });
        const now = isoNow(ctx.clock);
        return toolView(
          ctx,
          await tx.tools.insert(
            {
              id: newId('tool', ctx.clock.now()),
              key: null,
              name: definition.name,
              type: definition.type,
              definition,
              created_at: now,
              updated_at: now,
            },
            ctx.caller.user,
          ),
        );
      });
    },
  }),
  defineOperation({
    name: 'tools.list',
    summary: 'List tools',
    http: { method: 'GET', path: '/v1/tools' },
    query: { type: Tool.shape.type.optional() },
    output: z.object({ tools: z.array(KeyedToolSchema) }),
    async handler({ type }, ctx) {
      const listed = (await ctx.store.tools.list()).filter((t) => !type || t.type === type);
      const tools = await withKeys(ctx.store, 'tool', null, listed);
      return { tools: tools.map((t) => keyedToolView(ctx, t)) };
    },
  }),
  defineOperation({
    name: 'tools.get',
    summary: 'Get a tool by id or name',
    http: { method: 'GET', path: '/v1/tools/:tool' },
    params: ToolRef,
    output: KeyedToolSchema,
    async handler({ tool }, ctx) {
      const found = await findTool(ctx.store, tool);
      return keyedToolView(ctx, await withKey(ctx.store, 'tool', null, found));
    },
  }),
  defineOperation({
    name: 'tools.update',
    summary:
      "Replace a tool's definition (a new version). Sending a masked secret back keeps the stored one.",
    http: { method: 'PUT', path: '/v1/tools/:tool' },
    params: ToolRef,
    body: ToolInput,
    output: ToolSchema,
    async handler({ tool, ...input }, ctx) {
      const found = await connectionProblems(ctx, input, await ctx.store.tools.find(tool));
      return ctx.store.transaction(async (tx) => {
        const current = await findTool(tx, tool);
        const definition = await prepare(ctx, tx, input, { current, found });
        return toolView(
          ctx,
          await tx.tools.replace(current.id, {
            definition,
            change: 'updated',
            at: isoNow(ctx.clock),
            by: ctx.caller.user,
          }),
        );
      });
    },
  }),
  defineOperation({
    name: 'tools.delete',
    summary:
      "Delete a tool that no composite tool, alert or agent's configuration uses (its versions go with it)",
    http: { method: 'DELETE', path: '/v1/tools/:tool' },
    params: ToolRef,
    query: DryRunQuery,
    output: DeletedOrChecked,
    async handler({ tool, dryRun }, ctx) {
      return ctx.store.transaction(async (tx) => {
        const current = await findTool(tx, tool);
        const composites = await tx.tools.compositesUsing(current.name);
        const alerts = await tx.alerts.forTool(current.id);
        const agents = await agentsListing(tx, current.name);
        if (composites.length || alerts.length || agents.length) {
          const users = [
            composites.length
              ? `a step of ${countedNames(
                  composites.map((name) => ({ name })),
                  'composite tool',
                )}`
              : '',
            alerts.length ? `watched by ${countedNames(alerts, 'alert')}` : '',
            agents.length ? `listed by ${countedNames(agents, 'agent')}` : '',
          ].filter(Boolean);
          throw conflict(
            `Tool '${current.name}' is in use: ${users.join('; ')}; remove it from them first`,
            { composites, alerts, agents },
          );
        }
        if (dryRun) return checked(current.id);
        await tx.tools.delete(current.id);
        return deleted(current.id);
      });
    },
  }),
  defineOperation({
    name: 'tools.versions',
    summary: 'Every version of a tool, newest first',
    http: { method: 'GET', path: '/v1/tools/:tool/versions' },
    params: ToolRef,
    output: z.object({ versions: z.array(ToolVersionSchema) }),
    async handler({ tool }, ctx) {
      const current = await findTool(ctx.store, tool);
      return {
        versions: (await ctx.store.tools.versions(current.id)).map((v) => ({
          version: v.version,
          change: v.change,
          created_at: v.created_at,
          created_by: v.created_by,
          tool: present(ctx, v.definition),
        })),
      };
    },
  }),
  defineOperation({
    name: 'tools.rollback',
    summary: 'Make an earlier version current again, as a new version (history is never rewritten)',
    http: { method: 'POST', path: '/v1/tools/:tool/rollback' },
    params: ToolRef,
    body: { version: z.number().int().min(1) },
    output: ToolSchema,
    async handler({ tool, version }, ctx) {
      return ctx.store.transaction(async (tx) => {
        const current = await findTool(tx, tool);
        const old = await tx.tools.version(current.id, version);
        if (!old) throw notFound('tool version', `${current.name}@${version}`);
        const owner = await tx.tools.findByName(old.name);
        if (owner && owner.id !== current.id)
          throw conflict(`Version ${version} is named '${old.name}', which another tool now has`);
        return toolView(
          ctx,
          await tx.tools.replace(current.id, {
            definition: old,
            change: `rollback to version ${version}`,
            at: isoNow(ctx.clock),
            by: ctx.caller.user,
          }),
        );
      });
    },
  }),
  defineOperation({
    name: 'tools.test',
    summary: 'Call a tool for real with the given parameters',
    http: { method: 'POST', path: '/v1/tools/:tool/test' },
    params: ToolRef,
    body: {
      parameters: z.record(z.string(), z.unknown()).default({}),
      context: z.record(z.string(), z.unknown()).optional(),
      dryRun: z.boolean().optional(),
      agentId: z.string().optional(),
    },
    output: z
      .object({
        success: z.boolean(),
        responseTime: z.number().int().describe('ms'),
        result: z.unknown().describe('Shaped by responseMapping; the whole body without one'),
        statusCode: z.number().int().nullable(),
        attempts: z.number().int(),
        warnings: z.array(z.string()),
        approvalRequired: z.literal(true).optional(),
        message: z.string().optional().describe("The rule's message when approval is required"),
        error: z
          .object({
            type: z.string().describe(FAILURE_TYPES.join(' | ')),
            message: z.string(),
            step: z.string().optional(),
          })
          .optional(),
        fallback: z.object({ message: z.string().nullable(), action: z.string() }).optional(),
        dryRun: z.literal(true).optional(),
        request: z
          .unknown()
          .optional()
          .describe('Dry runs: the request that would be sent, secrets masked'),
        raw: RawToolAnswer.optional(),
      })
      .describe('A failing tool is a 200 with success false; bad parameters are a 400'),
    async handler({ tool, parameters, context, dryRun, agentId }, ctx) {
      // The store's lookup itself, not findTool: one promise fewer on every test call.
      const found = await ctx.store.tools.find(tool);
      if (!found) throw notFound('tool', tool);
      return executeTool(found, parameters, {
        deps: ctx.tools,
        context,
        source: 'test',
        agentId: agentId ?? null,
        dryRun,
        captureRaw: true,
      });
    },
  }),
  defineOperation({
    name: 'tools.analytics',
    summary: 'Usage, performance and errors of a tool over a window of days',
    http: { method: 'GET', path: '/v1/tools/:tool/analytics' },
    params: ToolRef,
    query: {
      days: z.coerce.number().int().min(1).max(365).default(7),
      window: AnalyticsWindow.optional(),
    },
    output: z.object({
      toolId: z.string(),
      name: z.string(),
      timeRange: z.string(),
      usage: z.object({
        totalCalls: z.number().int(),
        uniqueAgents: z.number().int(),
        avgCallsPerDay: z.number().int(),
      }),
      performance: z
        .object({
          successRate: z.number(),
          avgResponseTime: z.number(),
          p95ResponseTime: z.number(),
          timeoutRate: z.number(),
          errorRate: z.number(),
        })
        .describe('Rates are percentages 0 to 100 adding up to 100; times are ms over all calls'),
      errors: z.array(
        z.object({
          type: z.string(),
          count: z.number().int(),
          percentage: z.number(),
          message: z.string(),
        }),
      ),
      recommendations: z.array(z.string()),
      trend: z
        .array(ToolTrendBucket)
        .describe(
          "The window's calls bucket by bucket, oldest first (buckets sized to the window)",
        ),
    }),
    async handler({ tool, days, window }, ctx) {
      return toolAnalytics(
        ctx.store.toolCalls,
        await findTool(ctx.store, tool),
        { days, window },
        ctx.clock.now(),
      );
    },
  }),
];
