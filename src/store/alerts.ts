import { fromJson, toJson, type Db } from './db.js';

import type { AlertDefinition } from '../domain/alerts.js';

export type { AlertDefinition };

export interface StoredAlert {
  id: string;
  definition: AlertDefinition;
  isActive: boolean;
  state: string;
  created_at: string;
  updated_at: string;
}

interface Row {
  id: string;
  definition: string;
  is_active: number;
  state: string;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): StoredAlert => ({
  id: r.id,
  definition: fromJson<AlertDefinition>(r.definition),
  isActive: r.is_active === 1,
  state: r.state,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const toolIdOf = (d: AlertDefinition): string | null =>
  typeof d.condition.toolId === 'string' ? d.condition.toolId : null;

export function createAlertStore(db: Db) {
  const byId = db.prepare('SELECT * FROM alerts WHERE id = ?');
  const get = (id: string): StoredAlert | undefined => {
    const row = byId.get(id) as Row | undefined;
    return row && fromRow(row);
  };
  return {
    get,
    list(): StoredAlert[] {
      return (db.prepare('SELECT * FROM alerts ORDER BY created_at, id').all() as Row[]).map(
        fromRow,
      );
    },
    insert(a: StoredAlert): StoredAlert {
      db.prepare(
        'INSERT INTO alerts (id, name, definition, tool_id, is_active, state, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)',
      ).run(
        a.id,
        a.definition.name,
        toJson(a.definition),
        toolIdOf(a.definition),
        a.isActive ? 1 : 0,
        a.state,
        a.created_at,
        a.updated_at,
      );
      return a;
    },
    replace(
      id: string,
      definition: AlertDefinition,
      isActive: boolean,
      at: string,
    ): StoredAlert | undefined {
      db.prepare(
        'UPDATE alerts SET name = ?, definition = ?, tool_id = ?, is_active = ?, updated_at = ? WHERE id = ?',
      ).run(definition.name, toJson(definition), toolIdOf(definition), isActive ? 1 : 0, at, id);
      return get(id);
    },
    setState(id: string, state: string, lastFiredAt?: string): void {
      if (lastFiredAt)
        db.prepare('UPDATE alerts SET state = ?, last_fired_at = ? WHERE id = ?').run(
          state,
          lastFiredAt,
          id,
        );
      else db.prepare('UPDATE alerts SET state = ? WHERE id = ?').run(state, id);
    },
    lastFiredAt(id: string): string | null {
      return (
        (db.prepare('SELECT last_fired_at FROM alerts WHERE id = ?').pluck().get(id) as
          string | null) ?? null
      );
    },
    delete(id: string): boolean {
      return db.prepare('DELETE FROM alerts WHERE id = ?').run(id).changes > 0;
    },
    forTool(toolId: string): { id: string; name: string }[] {
      return db
        .prepare('SELECT id, name FROM alerts WHERE tool_id = ? ORDER BY name')
        .all(toolId) as {
        id: string;
        name: string;
      }[];
    },
  };
}

export type AlertStore = ReturnType<typeof createAlertStore>;
