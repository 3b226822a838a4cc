import type { Agent } from '../domain/agents.js';
import { conflict } from '../errors.js';
import { countedNames } from './common.js';
import type { OperationContext } from './types.js';

/** What agent operations refuse of variants (variants.ts), apart so agents.ts can import them. */

/** 409 for what only an agent at its provider can do. */
export function refuseOnVariant(agent: Agent, what: string): void {
  if (agent.parentId)
    throw conflict(
      `'${agent.name}' is a variant of agent ${agent.parentId}: it has no provider to ${what}; it follows its parent's syncs`,
    );
}

/**
 * Before a parent is deleted with its variants: 409 while a scenario targets one of them (a
 * schedule runs a scenario, so this covers schedules too), naming the variant and the scenarios.
 */
export async function assertVariantsUnused(ctx: OperationContext, parent: Agent): Promise<void> {
  for (const v of await ctx.store.agents.variantsOf(parent.id)) {
    const users = await ctx.store.scenarios.referencing(null, 'target_agents', v.id);
    if (users.length)
      throw conflict(
        `Variant '${v.name}' (${v.id}) of agent '${parent.name}' is a target of ${countedNames(users, 'scenario')}; remove it from them first`,
        { variant: { id: v.id, name: v.name }, scenarios: users },
      );
  }
}
