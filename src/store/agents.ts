import { placeholders, type Db } from './db.js';

/** The agents table as far as the foundation needs it: scenarios reference agents by id. */
export function createAgentStore(db: Db) {
  return {
    existing(ids: string[]): Set<string> {
      if (ids.length === 0) return new Set();
      const rows = db.prepare(`SELECT id FROM agents WHERE id IN (${placeholders(ids.length)})`).all(...ids) as { id: string }[];
      return new Set(rows.map((r) => r.id));
    },
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;
