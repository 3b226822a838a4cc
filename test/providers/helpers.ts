import type { TestServer } from '../helpers/server.js';

type SyncEnd = { ok: boolean; error?: string };

/** Resolves when the agent's next sync ends (the engine's own event; no sleeping). */
export function nextSync(s: TestServer, agentId: string): Promise<SyncEnd> {
  return new Promise((resolve) => {
    const off = s.engine.events.subscribe((e) => {
      if (e.type === 'sync.finished' && e.data.agentId === agentId) {
        off();
        resolve(e.data);
      }
    });
  });
}

/**
 * Listens for sync ends before a connect, whose agent id is known only from its answer: the sync
 * the connect starts may end before the answer is read. `of(id)` resolves with that agent's first
 * sync end, whether it came before the call or comes after.
 */
export function syncEnds(s: TestServer): { of(agentId: string): Promise<SyncEnd> } {
  const ended = new Map<string, SyncEnd>();
  const waiting = new Map<string, (end: SyncEnd) => void>();
  const off = s.engine.events.subscribe((e) => {
    if (e.type !== 'sync.finished') return;
    const waiter = waiting.get(e.data.agentId);
    if (waiter) waiter(e.data);
    else if (!ended.has(e.data.agentId)) ended.set(e.data.agentId, e.data);
  });
  return {
    of: (agentId) =>
      new Promise((resolve) => {
        const done = (end: SyncEnd) => {
          off();
          resolve(end);
        };
        const already = ended.get(agentId);
        if (already) done(already);
        else waiting.set(agentId, done);
      }),
  };
}

export const FAST_RETRY = { attempts: 3, baseDelayMs: 5, maxRetryAfterMs: 1_500, timeoutMs: 5_000 };
