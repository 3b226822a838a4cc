import { fromJson, placeholders, prepared, toJson, type Db } from './db.js';
import type { User } from './personas.js';
import type { ReadCache } from './read-cache.js';

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

const fromRow = (r: Row): StoredTool => ({
  ...r,
  definition: fromJson<ToolDefinition>(r.definition),
});

const BY_ID = 'SELECT * FROM tools WHERE id = ?';
const BY_NAME = 'SELECT * FROM tools WHERE name = ?';
const INSERT_VERSION = `INSERT INTO tool_versions (tool_id, version, definition, change, created_at, created_by_id, created_by_name)
     VALUES (?,?,?,?,?,?,?)`;

/** A tool's next version: its definition, what changed (updated, rollback to N), when and by whom. */
export interface NextVersion {
  definition: ToolDefinition;
  change: string;
  at: string;
  by: User;
}

/** Saving tools: each change is a new numbered version; history is never rewritten. */
function toolWrites(db: Db) {
  return {
    /** Creates the tool and its version 1 together. */
    insert(tool: Omit<StoredTool, 'version'>, by: User): StoredTool {
      return db.transaction(() => {
        db.prepare(
          'INSERT INTO tools (id, name, type, definition, version, created_at, updated_at) VALUES (?,?,?,?,1,?,?)',
        ).run(
          tool.id,
          tool.name,
          tool.type,
          toJson(tool.definition),
          tool.created_at,
          tool.updated_at,
        );
        prepared(db, INSERT_VERSION).run(
          tool.id,
          1,
          toJson(tool.definition),
          'created',
          tool.created_at,
          by.id,
          by.name,
        );
        return { ...tool, version: 1 };
      })();
    },
    /** Replaces the definition and appends the next numbered version; history is never rewritten. */
    replace(id: string, next: NextVersion): StoredTool {
      const { definition, change, at, by } = next;
      return db.transaction(() => {
        const current = prepared(db, BY_ID).get(id) as Row;
        const version = current.version + 1;
        db.prepare(
          'UPDATE tools SET name = ?, type = ?, definition = ?, version = ?, updated_at = ? WHERE id = ?',
        ).run(definition.name, definition.type, toJson(definition), version, at, id);
        prepared(db, INSERT_VERSION).run(
          id,
          version,
          toJson(definition),
          change,
          at,
          by.id,
          by.name,
        );
        return fromRow(prepared(db, BY_ID).get(id) as Row);
      })();
    },
    delete(id: string): boolean {
      return db.prepare('DELETE FROM tools WHERE id = ?').run(id).changes > 0;
    },
  };
}

/** A tool's versions. */
function toolHistory(db: Db) {
  return {
    versions(id: string): ToolVersion[] {
      const rows = db
        .prepare('SELECT * FROM tool_versions WHERE tool_id = ? ORDER BY version DESC')
        .all(id) as {
        version: number;
        change: string;
        definition: string;
        created_at: string;
        created_by_id: string;
        created_by_name: string;
      }[];
      return rows.map((r) => ({
        version: r.version,
        change: r.change,
        definition: fromJson<ToolDefinition>(r.definition),
        created_at: r.created_at,
        created_by: { id: r.created_by_id, name: r.created_by_name },
      }));
    },
    version(id: string, version: number): ToolDefinition | undefined {
      const row = db
        .prepare('SELECT definition FROM tool_versions WHERE tool_id = ? AND version = ?')
        .get(id, version) as { definition: string } | undefined;
      return row && fromJson<ToolDefinition>(row.definition);
    },
  };
}

/** All tools, names taken, and the composites that use a tool. */
function toolReads(db: Db) {
  return {
    list(): StoredTool[] {
      return (db.prepare('SELECT * FROM tools ORDER BY name').all() as Row[]).map(fromRow);
    },
    existingNames(names: string[]): Set<string> {
      if (names.length === 0) return new Set();
      const rows = db
        .prepare(`SELECT name FROM tools WHERE name IN (${placeholders(names.length)})`)
        .all(...names) as { name: string }[];
      return new Set(rows.map((r) => r.name));
    },
    /** Composite tools whose steps name this tool (a tool in use must not vanish under them). */
    compositesUsing(name: string): string[] {
      return (
        db
          .prepare(
            `SELECT t.name FROM tools t WHERE t.type = 'composite'
           AND EXISTS (SELECT 1 FROM json_each(t.definition, '$.steps') s WHERE json_extract(s.value, '$.tool') = ?)`,
          )
          .all(name) as { name: string }[]
      ).map((r) => r.name);
    },
  };
}

export function createToolStore(db: Db, cache: ReadCache) {
  const byId = prepared(db, BY_ID);
  const byName = prepared(db, BY_NAME);

  /** Tools are addressed by id or by name in paths; an id wins when both could match. */
  const find = (idOrName: string): StoredTool | undefined =>
    cache.get(`tool-ref:${idOrName}`, () => {
      const row = (byId.get(idOrName) ?? byName.get(idOrName)) as Row | undefined;
      return row && fromRow(row);
    });

  return {
    ...toolWrites(db),
    ...toolHistory(db),
    ...toolReads(db),
    find,
    /** Answered from the read cache: the runtime looks tools up by name on every call. */
    findByName(name: string): StoredTool | undefined {
      return cache.get(`tool:${name}`, () => {
        const row = byName.get(name) as Row | undefined;
        return row && fromRow(row);
      });
    },
  };
}

export type ToolStore = ReturnType<typeof createToolStore>;
