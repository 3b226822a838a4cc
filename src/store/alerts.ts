import { fromJson, toJson } from './db.js';
import type { StoreContext } from './sql/query.js';

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

const ROW_COLUMNS = ['id', 'definition', 'is_active', 'state', 'created_at', 'updated_at'] as const;

const toolIdOf = (d: AlertDefinition): string | null =>
  typeof d.condition.toolId === 'string' ? d.condition.toolId : null;

/** One alert by its id. */
async function readAlert(ctx: StoreContext, id: string): Promise<StoredAlert | undefined> {
  const row = await ctx.db
    .selectFrom('alerts')
    .select(ROW_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && fromRow(row);
}

/** Finding alerts: all, one's last firing, the ones watching a tool. */
function alertReads(ctx: StoreContext) {
  return {
    async list(): Promise<StoredAlert[]> {
      const rows = await ctx.db
        .selectFrom('alerts')
        .select(ROW_COLUMNS)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(fromRow);
    },
    async lastFiredAt(id: string): Promise<string | null> {
      const row = await ctx.db
        .selectFrom('alerts')
        .select('last_fired_at')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.last_fired_at ?? null;
    },
    async forTool(toolId: string): Promise<{ id: string; name: string }[]> {
      return ctx.db
        .selectFrom('alerts')
        .select(['id', 'name'])
        .where('tool_id', '=', toolId)
        .orderBy('name')
        .execute();
    },
  };
}

/** Saving alerts: create, replace, record a state change, delete. */
function alertWrites(ctx: StoreContext) {
  return {
    async insert(a: StoredAlert): Promise<StoredAlert> {
      await ctx.db
        .insertInto('alerts')
        .values({
          id: a.id,
          name: a.definition.name,
          definition: toJson(a.definition),
          tool_id: toolIdOf(a.definition),
          is_active: a.isActive ? 1 : 0,
          state: a.state,
          created_at: a.created_at,
          updated_at: a.updated_at,
        })
        .execute();
      return a;
    },
    async replace(
      id: string,
      definition: AlertDefinition,
      isActive: boolean,
      at: string,
    ): Promise<StoredAlert | undefined> {
      await ctx.db
        .updateTable('alerts')
        .set({
          name: definition.name,
          definition: toJson(definition),
          tool_id: toolIdOf(definition),
          is_active: isActive ? 1 : 0,
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
      return readAlert(ctx, id);
    },
    async setState(id: string, state: string, lastFiredAt?: string): Promise<void> {
      await ctx.db
        .updateTable('alerts')
        .set(lastFiredAt ? { state, last_fired_at: lastFiredAt } : { state })
        .where('id', '=', id)
        .execute();
    },
    async delete(id: string): Promise<boolean> {
      const result = await ctx.db.deleteFrom('alerts').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export function createAlertStore(ctx: StoreContext) {
  const get = (id: string) => readAlert(ctx, id);
  return {
    get,
    ...alertReads(ctx),
    ...alertWrites(ctx),
  };
}

export type AlertStore = ReturnType<typeof createAlertStore>;
