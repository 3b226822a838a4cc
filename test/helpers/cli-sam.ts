import type { TestServer } from './server.js';
import { promptOnlySnapshot, replicaAgent } from './support-sam.js';

/**
 * Inserts "Support Sam" (agt_sam), a Vapi agent with a one-line prompt and no tools, straight into
 * the store: the agent the CLI tests run scenarios against over the replica channel.
 */
export async function insertCliSam(s: TestServer): Promise<void> {
  await s.engine.store.agents.insert(
    replicaAgent({
      id: 'agt_sam',
      providerAgentId: 'a1',
      snapshot: promptOnlySnapshot('Support Sam', 'You are Sam.'),
      at: new Date().toISOString(),
    }),
  );
}
