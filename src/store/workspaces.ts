import type { Db } from './db.js';

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

export function createWorkspaceStore(db: Db) {
  const get = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id = ?');
  return {
    insert(ws: Workspace): Workspace {
      db.prepare('INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)').run(
        ws.id,
        ws.name,
        ws.created_at,
      );
      return ws;
    },
    get(id: string): Workspace | undefined {
      return get.get(id) as Workspace | undefined;
    },
    list(): Workspace[] {
      return db
        .prepare('SELECT id, name, created_at FROM workspaces ORDER BY created_at, id')
        .all() as Workspace[];
    },
    count(): number {
      return (db.prepare('SELECT COUNT(*) AS n FROM workspaces').get() as { n: number }).n;
    },
  };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;
