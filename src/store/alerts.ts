import { sql, type Insertable } from 'kysely';
import type { AlertDefinition, StoredAlert } from '../domain/alerts.js';
import { recordColumns } from './record-columns.js';
import { patchRow, type StoreContext } from './sql/query.js';
import type { Alerts } from './sql/tables.js';

export type { AlertDefinition, StoredAlert };

/** The columns of the `alerts` table that hold the alert (the copies are `definitionCopies`). */
const COLUMNS = recordColumns<StoredAlert>({
  id: { column: 'id' },
  key: { column: 'key' },
  definition: { column: 'definition', json: true },
  isActive: { column: 'is_active', flag: true },
  state: { column: 'state' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

/** What a replacement may set: the definition and the activity. */
const PATCH_COLUMNS = COLUMNS.patchColumns(['id', 'key', 'state', 'created_at', 'updated_at']);

/**
 * The columns copied from the definition so that they can be searched without reading its JSON:
 * the name, and the tool a tool alert watches (a tool in use must not be deleted).
 */
const definitionCopies = (d: AlertDefinition) => ({
  name: d.name,
  tool_id: typeof d.condition.toolId === 'string' ? d.condition.toolId : null,
});

/** One alert by its id. */
async function readAlert(ctx: StoreContext, id: string): Promise<StoredAlert | undefined> {
  const row = await ctx.db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
  return row && COLUMNS.fromRow(row);
}

/** Finding alerts: all, one's last firing, the ones watching a tool. */
function alertReads(ctx: StoreContext) {
  return {
    async list(): Promise<StoredAlert[]> {
      const rows = await ctx.db
        .selectFrom('alerts')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((r) => COLUMNS.fromRow(r));
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
      const values = { ...COLUMNS.toRow(a), ...definitionCopies(a.definition) };
      await ctx.db
        .insertInto('alerts')
        .values(values as Insertable<Alerts>)
        .execute();
      return a;
    },
    async replace(
      id: string,
      definition: AlertDefinition,
      isActive: boolean,
      at: string,
    ): Promise<StoredAlert | undefined> {
      await patchRow(ctx.db, {
        table: 'alerts',
        columns: PATCH_COLUMNS,
        patch: { definition, isActive },
        always: { ...definitionCopies(definition), updated_at: at },
        where: sql`id = ${id}`,
      });
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
