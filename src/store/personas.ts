import { fromJson, pageOf, patchRow, placeholders, toJson, type ColumnMap, type Db } from './db.js';
import type { ReadCache } from './read-cache.js';
import { RAN, noUsage, usageByIds, type UsageStats } from './usage.js';

export interface User {
  id: string;
  name: string;
}

export interface Persona {
  id: string;
  name: string;
  language: string;
  prompt: string;
  emotion: string;
  difficulty: string;
  backgroundNoise: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  created_by: User;
}

export type PersonaWithUsage = Persona & { usage_stats: UsageStats };
export type PersonaListItem = Omit<PersonaWithUsage, 'prompt'>;

export interface PersonaQuery {
  name?: string;
  language?: string;
  emotion?: string;
  difficulty?: string;
  tags?: string[];
  createdBy?: string;
  sortBy: 'name' | 'createdAt' | 'updatedAt' | 'usage';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export type PersonaPatch = Partial<
  Pick<
    Persona,
    'name' | 'language' | 'prompt' | 'emotion' | 'difficulty' | 'backgroundNoise' | 'tags'
  >
>;

interface Row {
  id: string;
  name: string;
  language: string;
  prompt?: string;
  emotion: string;
  difficulty: string;
  background_noise: string;
  tags: string;
  created_at: string;
  updated_at: string;
  created_by_id: string;
  created_by_name: string;
}

const fromRow = (r: Row): Persona => ({
  id: r.id,
  name: r.name,
  language: r.language,
  prompt: r.prompt ?? '',
  emotion: r.emotion,
  difficulty: r.difficulty,
  backgroundNoise: r.background_noise,
  tags: fromJson<string[]>(r.tags),
  created_at: r.created_at,
  updated_at: r.updated_at,
  created_by: { id: r.created_by_id, name: r.created_by_name },
});

/**
 * A list row as answered, built as one literal: spreading and omitting per row cost more than the
 * page's own queries (a page of 50 is read on every list request that the cache cannot answer).
 */
const toListItem = (r: Row, usage: UsageStats): PersonaListItem => ({
  id: r.id,
  name: r.name,
  language: r.language,
  emotion: r.emotion,
  difficulty: r.difficulty,
  backgroundNoise: r.background_noise,
  tags: fromJson<string[]>(r.tags),
  created_at: r.created_at,
  updated_at: r.updated_at,
  created_by: { id: r.created_by_id, name: r.created_by_name },
  usage_stats: usage,
});

const SORT_COLUMNS: Record<PersonaQuery['sortBy'], string> = {
  name: 'p.name COLLATE NOCASE',
  createdAt: 'p.created_at',
  updatedAt: 'p.updated_at',
  usage: `(SELECT COUNT(*) FROM simulations s WHERE s.persona_id = p.id AND s.${RAN})`,
};

const PATCH_COLUMNS: ColumnMap = {
  name: { column: 'name' },
  language: { column: 'language' },
  prompt: { column: 'prompt' },
  emotion: { column: 'emotion' },
  difficulty: { column: 'difficulty' },
  backgroundNoise: { column: 'background_noise' },
  tags: { column: 'tags', json: true },
};

const LIST_COLUMNS =
  'p.id, p.name, p.language, p.emotion, p.difficulty, p.background_noise, p.tags, p.created_at, p.updated_at, p.created_by_id, p.created_by_name';

/** Escapes LIKE wildcards so that a user's `%` or `_` is matched literally. */
const likeContains = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The FROM and WHERE of a persona query: its filters, with the trigram index for names. */
function personaFilter(workspaceId: string, q: PersonaQuery) {
  const where: string[] = ['p.workspace_id = ?'];
  const args: unknown[] = [workspaceId];
  let from = 'personas p';
  if (q.name) {
    // The trigram index needs three characters; shorter searches scan with LIKE. CROSS JOIN makes
    // SQLite start from the index's matches instead of walking every persona in date order.
    if ([...q.name].length >= 3) {
      from = 'personas_name_fts f CROSS JOIN personas p ON p.rowid = f.rowid';
      where.unshift('personas_name_fts MATCH ?');
      args.unshift(`"${q.name.replace(/"/g, '""')}"`);
    } else {
      where.push("p.name LIKE ? ESCAPE '\\'");
      args.push(likeContains(q.name));
    }
  }
  if (q.language) {
    where.push('p.language = ?');
    args.push(q.language);
  }
  if (q.emotion) {
    where.push('p.emotion = ?');
    args.push(q.emotion);
  }
  if (q.difficulty) {
    where.push('p.difficulty = ?');
    args.push(q.difficulty);
  }
  if (q.createdBy) {
    where.push('p.created_by_id = ?');
    args.push(q.createdBy);
  }
  for (const tag of q.tags ?? []) {
    where.push('EXISTS (SELECT 1 FROM json_each(p.tags) t WHERE lower(t.value) = lower(?))');
    args.push(tag);
  }
  return { from, filter: where.join(' AND '), args };
}

/** A page of a workspace's personas, filtered and sorted, with their usage figures. */
function listPersonas(
  db: Db,
  workspaceId: string,
  q: PersonaQuery,
): { items: PersonaListItem[]; total: number } {
  const { from, filter, args } = personaFilter(workspaceId, q);
  const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const { rows, total } = pageOf<Row>(
    db,
    {
      select: LIST_COLUMNS,
      from: `${from} WHERE ${filter}`,
      order: `${SORT_COLUMNS[q.sortBy]} ${dir}, p.id ${dir}`,
      args,
    },
    q,
  );
  const usage = usageByIds(
    db,
    'persona_id',
    rows.map((r) => r.id),
  );
  const items = rows.map((r) => toListItem(r, usage.get(r.id) ?? noUsage()));
  return { items, total };
}

export function createPersonaStore(db: Db, cache: ReadCache) {
  const getRow = db.prepare('SELECT * FROM personas WHERE workspace_id = ? AND id = ?');

  /** The persona alone, without its usage figures (which read every simulation it played). */
  function profile(workspaceId: string, id: string): Persona | undefined {
    const row = getRow.get(workspaceId, id) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  function get(workspaceId: string, id: string): PersonaWithUsage | undefined {
    const row = getRow.get(workspaceId, id) as Row | undefined;
    if (!row) return undefined;
    return {
      ...fromRow(row),
      usage_stats: usageByIds(db, 'persona_id', [id]).get(id) ?? noUsage(),
    };
  }

  const listUncached = (workspaceId: string, q: PersonaQuery) => listPersonas(db, workspaceId, q);

  return {
    get,
    profile,
    insert(workspaceId: string, p: Persona): PersonaWithUsage {
      db.prepare(
        `INSERT INTO personas (id, workspace_id, name, language, prompt, emotion, difficulty, background_noise, tags,
           created_at, updated_at, created_by_id, created_by_name) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      ).run(
        p.id,
        workspaceId,
        p.name,
        p.language,
        p.prompt,
        p.emotion,
        p.difficulty,
        p.backgroundNoise,
        toJson(p.tags),
        p.created_at,
        p.updated_at,
        p.created_by.id,
        p.created_by.name,
      );
      return { ...p, usage_stats: noUsage() };
    },
    update(
      workspaceId: string,
      id: string,
      patch: PersonaPatch,
      updatedAt: string,
    ): PersonaWithUsage | undefined {
      const changed = patchRow(db, {
        table: 'personas',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: { sql: 'workspace_id = ? AND id = ?', args: [workspaceId, id] },
      });
      return changed ? get(workspaceId, id) : undefined;
    },
    delete(workspaceId: string, id: string): boolean {
      return (
        db.prepare('DELETE FROM personas WHERE workspace_id = ? AND id = ?').run(workspaceId, id)
          .changes > 0
      );
    },
    /** Which of these ids exist in the workspace (for scenario references). */
    existing(workspaceId: string, ids: string[]): Set<string> {
      if (ids.length === 0) return new Set();
      const rows = db
        .prepare(
          `SELECT id FROM personas WHERE workspace_id = ? AND id IN (${placeholders(ids.length)})`,
        )
        .all(workspaceId, ...ids) as { id: string }[];
      return new Set(rows.map((r) => r.id));
    },
    list(workspaceId: string, q: PersonaQuery): { items: PersonaListItem[]; total: number } {
      return cache.get(`personas:${workspaceId}:${JSON.stringify(q)}`, () =>
        listUncached(workspaceId, q),
      );
    },
  };
}

export type PersonaStore = ReturnType<typeof createPersonaStore>;
