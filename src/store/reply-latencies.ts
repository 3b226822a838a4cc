import type { Simulation } from '../domain/simulations.js';
import { fromJson } from './db.js';

/*
 * An audio simulation's agent reply latencies, kept in their own column (`reply_latencies`,
 * migration 17) when it ends: a comparison's voice rows need every reply's latency of 2,000 calls,
 * and reading them from the turns meant parsing some 2.4 KB of JSON a call for a few numbers.
 * Simulations that ended before the column existed have none, and are read from their turns.
 */

type Turns = readonly Pick<Simulation['turns'][number], 'role' | 'latency_ms'>[];

/** The latency of every agent reply that has one, in turn order. */
export function replyLatenciesOf(turns: Turns): number[] {
  const out: number[] = [];
  for (const t of turns) if (t.role === 'agent' && t.latency_ms !== null) out.push(t.latency_ms);
  return out;
}

/** The column as an ended simulation sets it: its replies' latencies when it has audio, else null. */
export const replyLatenciesColumn = (
  r: Pick<Simulation, 'turns'> & Partial<Pick<Simulation, 'audio'>>,
): { reply_latencies: string | null } => ({
  reply_latencies: r.audio ? JSON.stringify(replyLatenciesOf(r.turns)) : null,
});

/**
 * The latencies a comparison reads: the column's, or (an audio simulation that ended before it
 * existed) the stored turns', parsed. Neither given: none.
 */
export function storedReplyLatencies(column: string | null, turns: string | null): number[] {
  if (column !== null) return fromJson<number[]>(column);
  return turns === null ? [] : replyLatenciesOf(fromJson<Turns>(turns));
}
