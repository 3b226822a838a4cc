import type { StoreContext } from './sql/query.js';

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

export function createWorkspaceStore(ctx: StoreContext) {
  return {
    async insert(ws: Workspace): Promise<Workspace> {
      await ctx.db
        .insertInto('workspaces')
        .values({ id: ws.id, name: ws.name, created_at: ws.created_at })
        .execute();
      return ws;
    },
    /** Read on every workspace request: cached until workspaces is written. */
    async get(id: string): Promise<Workspace | undefined> {
      return ctx.cache.get(
        `workspace:${id}`,
        () =>
          ctx.db
            .selectFrom('workspaces')
            .select(['id', 'name', 'created_at'])
            .where('id', '=', id)
            .executeTakeFirst(),
        ['workspaces'],
      );
    },
    async list(): Promise<Workspace[]> {
      return ctx.db
        .selectFrom('workspaces')
        .select(['id', 'name', 'created_at'])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    /** The name of the suite last imported into the workspace (#38); null before any import. */
    async suiteName(id: string): Promise<string | null> {
      const row = await ctx.db
        .selectFrom('workspaces')
        .select('suite_name')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.suite_name ?? null;
    },
    async setSuiteName(id: string, name: string | null): Promise<void> {
      await ctx.db
        .updateTable('workspaces')
        .set({ suite_name: name })
        .where('id', '=', id)
        .execute();
    },
    async count(): Promise<number> {
      const row = await ctx.db
        .selectFrom('workspaces')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return row.n;
    },
  };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;
