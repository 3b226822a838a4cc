import type { TestServer } from '../helpers/server.js';

/** Resolves when the agent's next sync ends (the engine's own event; no sleeping). */
export function nextSync(s: TestServer, agentId: string): Promise<{ ok: boolean; error?: string }> {
  return new Promise((resolve) => {
    const off = s.engine.events.subscribe((e) => {
      if (e.type === 'sync.finished' && e.data.agentId === agentId) {
        off();
        resolve(e.data);
      }
    });
  });
}

export const FAST_RETRY = { attempts: 3, baseDelayMs: 5, maxRetryAfterMs: 1_500, timeoutMs: 5_000 };
