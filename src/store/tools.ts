import { sql, type Insertable, type Kysely } from 'kysely';
import type { UserRef } from '../domain/records.js';
import type { StoredTool, ToolDefinition, ToolVersion } from '../domain/tools.js';
import { recordColumns } from './record-columns.js';
import type { StoreContext } from './sql/query.js';
import type { Tables, ToolVersions } from './sql/tables.js';

export type { StoredTool, ToolDefinition, ToolVersion };

/** The columns of the `tools` table, in the order a stored tool is built. */
const COLUMNS = recordColumns<StoredTool>({
  id: { column: 'id' },
  key: { column: 'key' },
  name: { column: 'name' },
  type: { column: 'type' },
  definition: { column: 'definition', json: true },
  version: { column: 'version' },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

/** The columns of the `tool_versions` table (besides `tool_id`). */
const VERSION_COLUMNS = recordColumns<ToolVersion>({
  version: { column: 'version' },
  change: { column: 'change' },
  definition: { column: 'definition', json: true },
  created_at: { column: 'created_at' },
  created_by: { columns: { id: 'created_by_id', name: 'created_by_name' } },
});

/** What a tool lookup reads: the call log's writes keep it in the read cache. */
const TOOL_READS = ['tools'];

/** What a new version sets: the definition, and the name and type copied beside it. */

const toolBy = async (db: Kysely<Tables>, column: 'id' | 'name', value: string) => {
  const row = await db.selectFrom('tools').selectAll().where(column, '=', value).executeTakeFirst();
  return row && COLUMNS.fromRow(row);
};

/** A tool's next version: its definition, what changed (updated, rollback to N), when and by whom. */
export interface NextVersion {
  definition: ToolDefinition;
  change: string;
  at: string;
  by: UserRef;
}

const versionRow = (id: string, version: number, next: NextVersion) =>
  ({
    tool_id: id,
    ...VERSION_COLUMNS.toRow({
      version,
      change: next.change,
      definition: next.definition,
      created_at: next.at,
      created_by: next.by,
    }),
  }) as Insertable<ToolVersions>;

/** Saving tools: each change is a new numbered version; history is never rewritten. */
function toolWrites(ctx: StoreContext) {
  return {
    /** Creates the tool and its version 1 together. */
    insert(tool: Omit<StoredTool, 'version'>, by: UserRef): Promise<StoredTool> {
      const stored: StoredTool = { ...tool, version: 1 };
      return ctx.atomic(async (db) => {
        await db
          .insertInto('tools')
          .values(COLUMNS.toRow(stored) as Insertable<Tables['tools']>)
          .execute();
        await db
          .insertInto('tool_versions')
          .values(
            versionRow(tool.id, 1, {
              definition: tool.definition,
              change: 'created',
              at: tool.created_at,
              by,
            }),
          )
          .execute();
        return stored;
      });
    },
    /** Replaces the definition and appends the next numbered version; history is never rewritten. */
    replace(id: string, next: NextVersion): Promise<StoredTool> {
      const { definition, at } = next;
      return ctx.atomic(async (db) => {
        // The version moves up in the UPDATE itself: two servers saving at once number in turn,
        // and the row it leaves is answered by the same statement.
        const row = await db
          .updateTable('tools')
          .set({
            ...COLUMNS.rowOf({ name: definition.name, type: definition.type, definition }),
            version: sql<number>`version + 1`,
            updated_at: at,
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const tool = COLUMNS.fromRow(row);
        await db
          .insertInto('tool_versions')
          .values(versionRow(id, tool.version, next))
          .execute();
        return tool;
      });
    },
    async delete(id: string): Promise<boolean> {
      const result = await ctx.db.deleteFrom('tools').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** A tool's versions. */
function toolHistory(ctx: StoreContext) {
  return {
    async versions(id: string): Promise<ToolVersion[]> {
      const rows = await ctx.db
        .selectFrom('tool_versions')
        .selectAll()
        .where('tool_id', '=', id)
        .orderBy('version', 'desc')
        .execute();
      return rows.map((r) => VERSION_COLUMNS.fromRow(r));
    },
    async version(id: string, version: number): Promise<ToolDefinition | undefined> {
      const row = await ctx.db
        .selectFrom('tool_versions')
        .selectAll()
        .where('tool_id', '=', id)
        .where('version', '=', version)
        .executeTakeFirst();
      return row && VERSION_COLUMNS.fromRow(row).definition;
    },
  };
}

/** All tools, names taken, and the composites that use a tool. */
function toolReads(ctx: StoreContext) {
  return {
    async list(): Promise<StoredTool[]> {
      const rows = await ctx.db.selectFrom('tools').selectAll().orderBy('name').execute();
      return rows.map((r) => COLUMNS.fromRow(r));
    },
    async existingNames(names: string[]): Promise<Set<string>> {
      if (names.length === 0) return new Set();
      const rows = await ctx.db
        .selectFrom('tools')
        .select('name')
        .where('name', 'in', names)
        .execute();
      return new Set(rows.map((r) => r.name));
    },
    /** Composite tools whose steps name this tool (a tool in use must not vanish under them). */
    async compositesUsing(name: string): Promise<string[]> {
      const { rows } = await sql<{ name: string }>`SELECT t.name FROM tools t
        WHERE t.type = 'composite'
          AND ${ctx.dialect.jsonObjectsHave('t.definition', { key: 'steps', field: 'tool' }, name)}`.execute(
        ctx.db,
      );
      return rows.map((r) => r.name);
    },
  };
}

export function createToolStore(ctx: StoreContext) {
  const { db, cache } = ctx;

  /** Tools are addressed by id or by name in paths; an id wins when both could match. */
  const find = (idOrName: string): Promise<StoredTool | undefined> =>
    cache.get(
      `tool-ref:${idOrName}`,
      async () => (await toolBy(db, 'id', idOrName)) ?? (await toolBy(db, 'name', idOrName)),
      TOOL_READS,
    );

  return {
    ...toolWrites(ctx),
    ...toolHistory(ctx),
    ...toolReads(ctx),
    find,
    /** Answered from the read cache: the runtime looks tools up by name on every call. */
    findByName(name: string): Promise<StoredTool | undefined> {
      return cache.get(`tool:${name}`, () => toolBy(db, 'name', name), TOOL_READS);
    },
  };
}

export type ToolStore = ReturnType<typeof createToolStore>;
