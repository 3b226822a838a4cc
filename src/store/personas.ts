import { sql, type RawBuilder } from 'kysely';
import type { PersonaVoice } from '../domain/audio.js';
import type { CallerBehaviours, PersonaNoise } from '../domain/callers.js';
import { fromJson, toJson, type ColumnMap } from './db.js';
import { pageOf, patchRow, type StoreContext } from './sql/query.js';
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
  /** How the persona sounds in audio mode; null: the offline system voice. */
  voice: PersonaVoice | null;
  /** Audio mode: speech over the background noise; null: the default of its difficulty. */
  noise: PersonaNoise | null;
  /** Audio mode: barge-ins, silences, backchannels and hang-ups, by chance; null: none. */
  behaviours: CallerBehaviours | null;
  created_at: string;
  updated_at: string;
  created_by: User;
}

export type PersonaWithUsage = Persona & { usage_stats: UsageStats };
export type PersonaListItem = Omit<PersonaWithUsage, 'prompt' | 'voice' | 'noise' | 'behaviours'>;

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
    | 'name'
    | 'language'
    | 'prompt'
    | 'emotion'
    | 'difficulty'
    | 'backgroundNoise'
    | 'tags'
    | 'voice'
    | 'noise'
    | 'behaviours'
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
  voice?: string | null;
  noise?: string | null;
  behaviours?: string | null;
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
  voice: fromJson<PersonaVoice | null>(r.voice ?? null),
  noise: fromJson<PersonaNoise | null>(r.noise ?? null),
  behaviours: fromJson<CallerBehaviours | null>(r.behaviours ?? null),
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

/** ORDER BY keys of each sort; usage counts the simulations each persona played. */
const sortKey = (ctx: StoreContext, by: PersonaQuery['sortBy']): RawBuilder<unknown> =>
  ({
    name: () => ctx.dialect.caseless('p.name'),
    createdAt: () => sql`p.created_at`,
    updatedAt: () => sql`p.updated_at`,
    usage: () =>
      sql`(SELECT COUNT(*) FROM simulations s WHERE s.persona_id = p.id AND ${sql.raw(`s.${RAN}`)})`,
  })[by]();

const PATCH_COLUMNS: ColumnMap = {
  name: { column: 'name' },
  language: { column: 'language' },
  prompt: { column: 'prompt' },
  emotion: { column: 'emotion' },
  difficulty: { column: 'difficulty' },
  backgroundNoise: { column: 'background_noise' },
  tags: { column: 'tags', json: true },
  voice: { column: 'voice', json: true },
  noise: { column: 'noise', json: true },
  behaviours: { column: 'behaviours', json: true },
};

const LIST_COLUMNS = sql.raw(
  'p.id, p.name, p.language, p.emotion, p.difficulty, p.background_noise, p.tags, p.created_at, p.updated_at, p.created_by_id, p.created_by_name',
);

/** The FROM and WHERE of a persona query: its filters, with the trigram index for names. */
function personaFilter(ctx: StoreContext, workspaceId: string, q: PersonaQuery) {
  const where: RawBuilder<unknown>[] = [sql`p.workspace_id = ${workspaceId}`];
  let from: RawBuilder<unknown> = sql`personas p`;
  if (q.name) {
    // The trigram index needs three characters; shorter searches scan.
    if ([...q.name].length >= 3) {
      const search = ctx.dialect.personaNameSearch('p', q.name);
      from = search.from;
      where.unshift(search.where);
    } else where.push(ctx.dialect.containsCaseless('p.name', q.name));
  }
  if (q.language) where.push(sql`p.language = ${q.language}`);
  if (q.emotion) where.push(sql`p.emotion = ${q.emotion}`);
  if (q.difficulty) where.push(sql`p.difficulty = ${q.difficulty}`);
  if (q.createdBy) where.push(sql`p.created_by_id = ${q.createdBy}`);
  for (const tag of q.tags ?? [])
    where.push(ctx.dialect.jsonArrayHas('p.tags', tag, { caseless: true }));
  return sql`${from} WHERE ${sql.join(where, sql` AND `)}`;
}

/** A page of a workspace's personas, filtered and sorted, with their usage figures. */
async function listPersonas(
  ctx: StoreContext,
  workspaceId: string,
  q: PersonaQuery,
): Promise<{ items: PersonaListItem[]; total: number }> {
  const dir = sql.raw(q.sortOrder === 'asc' ? 'ASC' : 'DESC');
  const { rows, total } = await pageOf<Row>(
    ctx.db,
    {
      select: LIST_COLUMNS,
      from: personaFilter(ctx, workspaceId, q),
      order: sql`${sortKey(ctx, q.sortBy)} ${dir}, p.id ${dir}`,
    },
    q,
  );
  const usage = await usageByIds(
    ctx,
    'persona_id',
    rows.map((r) => r.id),
  );
  const items = rows.map((r) => toListItem(r, usage.get(r.id) ?? noUsage()));
  return { items, total };
}

/** Stores a new persona in the workspace. */
async function insertPersona({ db }: StoreContext, workspaceId: string, p: Persona): Promise<void> {
  await db
    .insertInto('personas')
    .values({
      id: p.id,
      workspace_id: workspaceId,
      name: p.name,
      language: p.language,
      prompt: p.prompt,
      emotion: p.emotion,
      difficulty: p.difficulty,
      background_noise: p.backgroundNoise,
      tags: toJson(p.tags),
      voice: p.voice === null ? null : toJson(p.voice),
      noise: p.noise === null ? null : toJson(p.noise),
      behaviours: p.behaviours === null ? null : toJson(p.behaviours),
      created_at: p.created_at,
      updated_at: p.updated_at,
      created_by_id: p.created_by.id,
      created_by_name: p.created_by.name,
    })
    .execute();
}

export function createPersonaStore(ctx: StoreContext) {
  const { db } = ctx;
  const getRow = (workspaceId: string, id: string) =>
    db
      .selectFrom('personas')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst() as Promise<Row | undefined>;

  /** The persona alone, without its usage figures (which read every simulation it played). */
  async function profile(workspaceId: string, id: string): Promise<Persona | undefined> {
    const row = await getRow(workspaceId, id);
    return row ? fromRow(row) : undefined;
  }

  async function get(workspaceId: string, id: string): Promise<PersonaWithUsage | undefined> {
    const row = await getRow(workspaceId, id);
    if (!row) return undefined;
    const usage = await usageByIds(ctx, 'persona_id', [id]);
    return { ...fromRow(row), usage_stats: usage.get(id) ?? noUsage() };
  }

  return {
    get,
    profile,
    async insert(workspaceId: string, p: Persona): Promise<PersonaWithUsage> {
      await insertPersona(ctx, workspaceId, p);
      return { ...p, usage_stats: noUsage() };
    },
    async update(
      workspaceId: string,
      id: string,
      patch: PersonaPatch,
      updatedAt: string,
    ): Promise<PersonaWithUsage | undefined> {
      const changed = await patchRow(db, {
        table: 'personas',
        columns: PATCH_COLUMNS,
        patch,
        always: { updated_at: updatedAt },
        where: sql`workspace_id = ${workspaceId} AND id = ${id}`,
      });
      return changed ? get(workspaceId, id) : undefined;
    },
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('personas')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Which of these ids exist in the workspace (for scenario references). */
    async existing(workspaceId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('personas')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', ids)
        .execute();
      return new Set(rows.map((r) => r.id));
    },
    list(
      workspaceId: string,
      q: PersonaQuery,
    ): Promise<{ items: PersonaListItem[]; total: number }> {
      return ctx.cache.get(`personas:${workspaceId}:${JSON.stringify(q)}`, () =>
        listPersonas(ctx, workspaceId, q),
      );
    },
  };
}

export type PersonaStore = ReturnType<typeof createPersonaStore>;
