import { z } from 'zod';
import { isoNow } from '../clock.js';
import type { Agent } from '../domain/agents.js';
import { conflict, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import { AgentSchema } from './agent-schemas.js';
import { ConfigurationPatch, answerOf, getAgent } from './agents.js';
import { Id } from './common.js';
import { defineOperation, withStatus, type OperationContext } from './types.js';

/**
 * Variants: an agent's configuration tried as an agent of its own. A variant has its own id and a
 * synthetic provider agent id (`<parent's>#variant-<its id>`, never the id of a real agent at
 * the provider, so it never clashes with the unique provider + agent id), runs on the replica
 * only, and follows its parent: its synced configuration is the parent's with the parent's
 * overrides folded in (store/agent-variants.ts), its overrides are its own configuration on top.
 * It has no provider of its own: sync and test-connection are refused (409). Lists show variants
 * beside their parents, with `parentId` so screens can nest them.
 */

const AgentParams = { agent_id: Id };

/** A variant of `parent`, with `configuration` as its own overrides, shared as the parent is. */
async function createVariant(
  ctx: OperationContext,
  parent: Agent,
  input: { name: string; configuration: z.infer<typeof ConfigurationPatch> },
): Promise<Agent> {
  const now = ctx.clock.now();
  const at = isoNow(ctx.clock);
  const id = newId('agt', now);
  const variant: Agent = {
    id,
    name: input.name,
    provider: parent.provider,
    providerAgentId: `${parent.providerAgentId}#variant-${id}`,
    status: 'active',
    description: parent.description,
    // Kept for the row only: the variant is read through its parent's snapshot.
    snapshot: parent.snapshot,
    channel: 'replica',
    tags: [],
    overrides: { configuration: input.configuration },
    syncStatus: 'idle',
    lastSyncedAt: parent.lastSyncedAt,
    syncError: null,
    credentials: null,
    callsCursorMs: null,
    parentId: parent.id,
    created_at: at,
    updated_at: at,
  };
  await ctx.store.transaction(async (tx) => {
    await tx.agents.insert(variant);
    await tx.agents.setWorkspaces(id, await tx.agents.workspacesOf(parent.id));
  });
  return (await ctx.store.agents.get(id))!;
}

export const variantOperations = [
  defineOperation({
    name: 'agents.createVariant',
    summary:
      "A variant of the agent: its own id, on the replica, following the parent's syncs; its configuration (as PATCH takes it) on top of the parent's",
    http: { method: 'POST', path: '/v1/agents/:agent_id/variants', status: 201 },
    params: AgentParams,
    body: {
      name: z.string().trim().min(1).max(200),
      configuration: ConfigurationPatch,
    },
    output: AgentSchema,
    async handler({ agent_id, name, configuration }, ctx) {
      const parent = await getAgent(ctx, agent_id);
      if (parent.parentId)
        throw conflict(
          `'${parent.name}' is itself a variant: make variants of its parent ${parent.parentId}`,
        );
      if (parent.provider === 'http' || parent.provider === 'demo')
        throw conflict(
          `'${parent.name}' is reached at its own URL: it has no configuration here to vary, and no replica`,
        );
      if (configuration.demo)
        throw invalidField('configuration.demo', 'applies to the demo agent only (provider demo)');
      return withStatus(
        201,
        await answerOf(ctx, await createVariant(ctx, parent, { name, configuration })),
      );
    },
  }),
  defineOperation({
    name: 'agents.variants',
    summary: "The agent's variants, oldest first",
    http: { method: 'GET', path: '/v1/agents/:agent_id/variants' },
    params: AgentParams,
    output: z.object({ variants: z.array(AgentSchema) }),
    async handler({ agent_id }, ctx) {
      await getAgent(ctx, agent_id);
      const variants = await ctx.store.agents.variantsOf(agent_id);
      return { variants: await Promise.all(variants.map((v) => answerOf(ctx, v))) };
    },
  }),
];
