import { sampleReason } from '../domain/monitoring.js';
import type { NormalizedCall } from '../domain/providers.js';
import type { Store } from '../store/index.js';

/**
 * The monitoring's share of an import: of a page's new calls, those the agent's monitoring scores
 * (failed, short, or taken by the sample) are queued for the background scorer, in the page's own
 * transaction. Only the page and the agent's row are read, so the decision costs the same however
 * many calls are stored; the scoring itself happens elsewhere, never holding up the sync.
 * Answers how many were queued.
 */
export async function queueMonitoredCalls(
  tx: Store,
  agentId: string,
  fresh: { id: string; call: NormalizedCall }[],
  at: string,
): Promise<number> {
  if (fresh.length === 0) return 0;
  const monitoring = (await tx.agents.get(agentId))?.monitoring;
  if (!monitoring?.enabled) return 0;
  const jobs = fresh.flatMap(({ id, call }) => {
    const reason = sampleReason(monitoring, { ...call, providerError: !!call.providerError });
    return reason ? [{ callId: id, agentId, reason }] : [];
  });
  return jobs.length ? tx.callEvaluations.enqueue(jobs, at) : 0;
}
