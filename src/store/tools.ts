import { sql, type Kysely } from 'kysely';
import { fromJson, toJson } from './db.js';
import type { User } from './personas.js';
import type { StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';

/** A tool definition as stored: the Tool object of the specification, secrets sealed. */
export type ToolDefinition = Record<string, unknown> & { name: string; type: string };

export interface StoredTool {
  id: string;
  name: string;
  type: string;
  definition: ToolDefinition;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ToolVersion {
  version: number;
  change: string;
  definition: ToolDefinition;
  created_at: string;
  created_by: User;
}

interface Row {
  id: string;
  name: string;
  type: string;
  definition: string;
  version: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS = [
  'id',
  'name',
  'type',
  'definition',
  'version',
  'created_at',
  'updated_at',
] as const;

const fromRow = (r: Row): StoredTool => ({
  id: r.id,
  name: r.name,
  type: r.type,
  definition: fromJson<ToolDefinition>(r.definition),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const toolBy = (db: Kysely<Tables>, column: 'id' | 'name', value: string) =>
  db.selectFrom('tools').select(COLUMNS).where(column, '=', value).executeTakeFirst();

/** A tool's next version: its definition, what changed (updated, rollback to N), when and by whom. */
export interface NextVersion {
  definition: ToolDefinition;
  change: string;
  at: string;
  by: User;
}

const versionRow = (id: string, version: number, next: NextVersion) => ({
  tool_id: id,
  version,
  definition: toJson(next.definition),
  change: next.change,
  created_at: next.at,
  created_by_id: next.by.id,
  created_by_name: next.by.name,
});

/** Saving tools: each change is a new numbered version; history is never rewritten. */
function toolWrites(ctx: StoreContext) {
  return {
    /** Creates the tool and its version 1 together. */
    insert(tool: Omit<StoredTool, 'version'>, by: User): Promise<StoredTool> {
      return ctx.atomic(async (db) => {
        await db
          .insertInto('tools')
          .values({
            id: tool.id,
            name: tool.name,
            type: tool.type,
            definition: toJson(tool.definition),
            version: 1,
            created_at: tool.created_at,
            updated_at: tool.updated_at,
          })
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
        return { ...tool, version: 1 };
      });
    },
    /** Replaces the definition and appends the next numbered version; history is never rewritten. */
    replace(id: string, next: NextVersion): Promise<StoredTool> {
      const { definition, at } = next;
      return ctx.atomic(async (db) => {
        // The version moves up in the UPDATE itself: two servers saving at once number in turn.
        const row = await db
          .updateTable('tools')
          .set({
            name: definition.name,
            type: definition.type,
            definition: toJson(definition),
            version: sql<number>`version + 1`,
            updated_at: at,
          })
          .where('id', '=', id)
          .returning(COLUMNS)
          .executeTakeFirstOrThrow();
        await db
          .insertInto('tool_versions')
          .values(versionRow(id, row.version, next))
          .execute();
        return fromRow(row);
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
        .select([
          'version',
          'change',
          'definition',
          'created_at',
          'created_by_id',
          'created_by_name',
        ])
        .where('tool_id', '=', id)
        .orderBy('version', 'desc')
        .execute();
      return rows.map((r) => ({
        version: r.version,
        change: r.change,
        definition: fromJson<ToolDefinition>(r.definition),
        created_at: r.created_at,
        created_by: { id: r.created_by_id, name: r.created_by_name },
      }));
    },
    async version(id: string, version: number): Promise<ToolDefinition | undefined> {
      const row = await ctx.db
        .selectFrom('tool_versions')
        .select('definition')
        .where('tool_id', '=', id)
        .where('version', '=', version)
        .executeTakeFirst();
      return row && fromJson<ToolDefinition>(row.definition);
    },
  };
}

/** All tools, names taken, and the composites that use a tool. */
function toolReads(ctx: StoreContext) {
  return {
    async list(): Promise<StoredTool[]> {
      const rows = await ctx.db.selectFrom('tools').select(COLUMNS).orderBy('name').execute();
      return rows.map(fromRow);
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
    cache.get(`tool-ref:${idOrName}`, async () => {
      const row = (await toolBy(db, 'id', idOrName)) ?? (await toolBy(db, 'name', idOrName));
      return row && fromRow(row);
    });

  return {
    ...toolWrites(ctx),
    ...toolHistory(ctx),
    ...toolReads(ctx),
    find,
    /** Answered from the read cache: the runtime looks tools up by name on every call. */
    findByName(name: string): Promise<StoredTool | undefined> {
      return cache.get(`tool:${name}`, async () => {
        const row = await toolBy(db, 'name', name);
        return row && fromRow(row);
      });
    },
  };
}

export type ToolStore = ReturnType<typeof createToolStore>;
