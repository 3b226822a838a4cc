import { forbidden } from '../errors.js';
import type { Store } from '../store/index.js';

/**
 * A workspace token runs only agents shared with its workspace: an agent's channel reaches it with
 * the engine's stored credentials (its provider key, its tools' secrets), which the token's holder
 * was never given. Refuses (403) naming the first of `agentIds` that is not shared.
 */
export async function assertAgentsShared(
  store: Store,
  workspaceId: string,
  agentIds: string[],
): Promise<void> {
  const shared = await store.agents.sharedWith(workspaceId, agentIds);
  const first = agentIds.find((id) => !shared.has(id));
  if (first) throw forbidden(`agent ${first} is not shared with workspace ${workspaceId}`);
}
