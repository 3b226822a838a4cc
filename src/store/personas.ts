import { sql, type Insertable, type RawBuilder } from 'kysely';
import { PersonaListFields, type Persona, type PersonaPatch } from '../domain/personas.js';
import type { UserRef } from '../domain/records.js';
import { recordColumns } from './record-columns.js';
import type { Personas } from './sql/tables.js';
import { pageOf, patchRow, type StoreContext } from './sql/query.js';
import { RAN, noUsage, usageByIds, type UsageStats } from './usage.js';

export type { Persona, PersonaPatch };
export type User = UserRef;

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

/** The persona's columns in the `personas` table (besides `workspace_id`), in answer order. */
const COLUMNS = recordColumns<Persona>({
  id: { column: 'id' },
  key: { column: 'key' },
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
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
  created_by: { columns: { id: 'created_by_id', name: 'created_by_name' } },
});

type Row = Record<string, unknown> & { id: string };

const LIST_FIELDS = Object.keys(PersonaListFields.shape);
const LIST_COLUMNS = sql.raw(COLUMNS.selectList('p', LIST_FIELDS));

/**
 * A list row as answered, built as one literal: spreading and omitting per row cost more than the
 * page's own queries (a page of 50 is read on every list request that the cache cannot answer).
 */
const toListItem = COLUMNS.reader<PersonaListItem>(LIST_FIELDS, ['usage_stats']);

const PATCH_COLUMNS = COLUMNS.patchColumns(['id', 'key', 'created_at', 'updated_at', 'created_by']);

/** ORDER BY keys of each sort; usage counts the simulations each persona played. */
const sortKey = (ctx: StoreContext, by: PersonaQuery['sortBy']): RawBuilder<unknown> =>
  ({
    name: () => ctx.dialect.caseless('p.name'),
    createdAt: () => sql`p.created_at`,
    updatedAt: () => sql`p.updated_at`,
    usage: () =>
      sql`(SELECT COUNT(*) FROM simulations s WHERE s.persona_id = p.id AND ${sql.raw(`s.${RAN}`)})`,
  })[by]();

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
  const values = { workspace_id: workspaceId, ...COLUMNS.toRow(p) } as Insertable<Personas>;
  await db.insertInto('personas').values(values).execute();
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
    return row ? COLUMNS.fromRow(row) : undefined;
  }

  async function get(workspaceId: string, id: string): Promise<PersonaWithUsage | undefined> {
    const row = await getRow(workspaceId, id);
    if (!row) return undefined;
    const usage = await usageByIds(ctx, 'persona_id', [id]);
    return { ...COLUMNS.fromRow(row), usage_stats: usage.get(id) ?? noUsage() };
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
    /** Every persona of the workspace whole, without usage figures, oldest first (a suite's plan). */
    async all(workspaceId: string): Promise<Persona[]> {
      const rows = (await db
        .selectFrom('personas')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute()) as Row[];
      return rows.map((row) => COLUMNS.fromRow(row));
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
