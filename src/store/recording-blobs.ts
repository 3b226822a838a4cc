import { sql } from 'kysely';
import type { StoreContext } from './sql/query.js';

/**
 * Call recordings as rows (a team server's instances share no disk, so a recording one worker
 * made plays from any instance). Reads come in byte ranges: a range request never loads the
 * whole WAV. `substr` and `octet_length` count bytes of a BLOB or BYTEA alike on both databases.
 */
export function createRecordingBlobStore(ctx: StoreContext) {
  return {
    /** Stores (or replaces) a recording. */
    async put(name: string, bytes: Buffer, savedAt: string): Promise<void> {
      await ctx.db
        .insertInto('recording_blobs')
        .values({ name, saved_at: savedAt, bytes })
        .onConflict((oc) => oc.column('name').doUpdateSet({ bytes, saved_at: savedAt }))
        .execute();
    },
    /** Its size in bytes, or null when there is none. */
    async size(name: string): Promise<number | null> {
      const row = await ctx.db
        .selectFrom('recording_blobs')
        .select(sql<number>`octet_length(bytes)`.as('size'))
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? Number(row.size) : null;
    },
    /** Bytes [start, end] (inclusive, as HTTP ranges count); null when there is none. */
    async slice(name: string, start: number, end: number): Promise<Buffer | null> {
      const row = await ctx.db
        .selectFrom('recording_blobs')
        .select(sql<Buffer>`substr(bytes, ${start + 1}, ${end - start + 1})`.as('part'))
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? Buffer.from(row.part) : null;
    },
    async remove(name: string): Promise<void> {
      await ctx.db.deleteFrom('recording_blobs').where('name', '=', name).execute();
    },
    /** Every recording's name and when it was saved (for the retention sweep). */
    async list(): Promise<{ name: string; savedAt: string }[]> {
      const rows = await ctx.db
        .selectFrom('recording_blobs')
        .select(['name', 'saved_at'])
        .execute();
      return rows.map((r) => ({ name: r.name, savedAt: r.saved_at }));
    },
  };
}
