import { deepMerge } from '../domain/deep-merge.js';
import type { Agent } from '../domain/agents.js';

/**
 * A variant as it runs: its parent's synced snapshot, with the parent's local overrides folded
 * into that snapshot's configuration, is the variant's synced configuration; the variant's own
 * overrides stay its own (its `overrides` list names only them, and PATCH changes only them). So
 * a variant is "the parent as it is tested now, plus this configuration", and follows every sync
 * and every override of its parent without a copy to keep in step. A variant whose parent is
 * gone (never, as deleting a parent deletes its variants) is read as stored.
 */
export function asVariantOf(variant: Agent, parent: Agent | undefined): Agent {
  if (!parent) return variant;
  const parentOverrides = (parent.overrides as { configuration?: unknown }).configuration;
  return {
    ...variant,
    snapshot: {
      ...parent.snapshot,
      configuration: deepMerge(parent.snapshot.configuration, parentOverrides),
    },
  };
}

/** The agents with every variant among them read through its parent (`parentOf` finds it). */
export async function composeVariants(
  agents: Agent[],
  parentOf: (id: string) => Promise<Agent | undefined>,
): Promise<Agent[]> {
  const known = new Map(agents.map((a) => [a.id, a]));
  const out: Agent[] = [];
  for (const a of agents) {
    if (!a.parentId) {
      out.push(a);
      continue;
    }
    const parent = known.get(a.parentId) ?? (await parentOf(a.parentId));
    out.push(asVariantOf(a, parent));
  }
  return out;
}
