import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadCache } from '../../src/store/read-cache.js';

describe('read cache', () => {
  let db: Database.Database | undefined;
  afterEach(() => db?.close());

  const setup = () => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE t (n INTEGER)');
    const cache = createReadCache(db, 4);
    let computed = 0;
    const read = (key: string) =>
      cache.get(key, () => {
        computed++;
        return Promise.resolve(db!.prepare('SELECT COUNT(*) FROM t').pluck().get());
      });
    return { read, computed: () => computed, db };
  };

  it('keeps an answer from its second ask on, so pages read once do not fill the heap', async () => {
    const c = setup();
    expect(await c.read('a')).toBe(0);
    expect(await c.read('a')).toBe(0);
    expect(c.computed()).toBe(2);
    expect(await c.read('a')).toBe(0);
    expect(await c.read('a')).toBe(0);
    expect(c.computed()).toBe(2);
  });

  it('never answers from before a write', async () => {
    const c = setup();
    await c.read('a');
    await c.read('a');
    c.db.exec('INSERT INTO t VALUES (1)');
    expect(await c.read('a')).toBe(1);
    expect(c.computed()).toBe(3);
  });

  it('does not keep an answer read while a write landed', async () => {
    const c = setup();
    await c.read('a');
    const cache = createReadCache(c.db, 4);
    await cache.get('a', () => Promise.resolve(0));
    // The second ask would be kept, but a write lands while it is being read.
    await cache.get('a', () => {
      c.db.exec('INSERT INTO t VALUES (1)');
      return Promise.resolve(0);
    });
    expect(await cache.get('a', () => Promise.resolve('fresh'))).toBe('fresh');
  });

  it('holds at most its capacity, dropping the least recently used', async () => {
    const c = setup();
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await c.read(key);
      await c.read(key);
    }
    const before = c.computed();
    await c.read('e');
    expect(c.computed()).toBe(before);
    await c.read('a');
    expect(c.computed()).toBe(before + 1);
  });

  it('answers a write another connection committed at once, with no turn of the loop between', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'callbench-read-cache-'));
    const file = join(dir, 'store.db');
    const mine = new Database(file);
    const theirs = new Database(file); // the CLI, or a second engine tool, on the same file
    try {
      mine.pragma('journal_mode = WAL');
      mine.exec('CREATE TABLE t (n INTEGER)');
      const cache = createReadCache(mine, 4);
      const count = () =>
        cache.get('count', () =>
          Promise.resolve(mine.prepare('SELECT COUNT(*) FROM t').pluck().get()),
        );
      expect(await count()).toBe(0);
      expect(await count()).toBe(0); // kept from here on
      for (let n = 1; n <= 3; n++) {
        theirs.exec('INSERT INTO t VALUES (1)');
        expect(await count()).toBe(n);
        expect(await count()).toBe(n);
      }
    } finally {
      theirs.close();
      mine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('read cache: answers dropped by the tables written', () => {
  let db: Database.Database | undefined;
  afterEach(() => db?.close());

  /** Tables a and b; `read(table)` counts its rows, declared as read from that table alone. */
  const setup = (file = ':memory:') => {
    db = new Database(file);
    if (file !== ':memory:') db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE a (n INTEGER); CREATE TABLE b (n INTEGER)');
    const mine = db;
    const cache = createReadCache(mine, 8);
    const computed: Record<string, number> = {};
    const count = (table: string) => mine.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
    /** `reads` null: the answer names no tables. */
    const read = (table: string, reads: string[] | null = [table]) =>
      cache.get(
        `${table}:${String(reads)}`,
        () => {
          computed[table] = (computed[table] ?? 0) + 1;
          return Promise.resolve(count(table));
        },
        reads ?? undefined,
      );
    const insert = (table: string) => mine.prepare(`INSERT INTO ${table} VALUES (1)`).run();
    return { cache, read, insert, computed, db: mine };
  };
  /** Asks twice, so that the answer is kept from then on. */
  const kept = async (read: () => Promise<unknown>) => {
    await read();
    await read();
  };

  it('keeps what was read from b when a write through `writing` changed only a', async () => {
    const c = setup();
    await kept(() => c.read('a'));
    await kept(() => c.read('b'));
    c.cache.writing('a', () => c.insert('a'));
    expect(await c.read('a')).toBe(1);
    expect(c.computed.a).toBe(3);
    expect(await c.read('b')).toBe(0);
    expect(c.computed.b).toBe(2);
  });

  it('drops an answer that names no tables at any write, `writing` ones included', async () => {
    const c = setup();
    await kept(() => c.read('b', null));
    c.cache.writing('a', () => c.insert('a'));
    await c.read('b', null);
    expect(c.computed.b).toBe(3);
  });

  it('drops every answer at a write made on the connection without `writing`', async () => {
    const c = setup();
    await kept(() => c.read('b'));
    c.insert('a');
    await c.read('b');
    expect(c.computed.b).toBe(3);
    // Such a write just before one through `writing` is not taken for the latter's table.
    await kept(() => c.read('b'));
    c.insert('b');
    c.cache.writing('a', () => c.insert('a'));
    expect(await c.read('b')).toBe(1);
  });

  it('drops what was read from a table when a write through `writing` fails', () => {
    const c = setup();
    return (async () => {
      await kept(() => c.read('a'));
      expect(() =>
        c.cache.writing('a', () => {
          c.insert('a');
          throw new Error('after the row');
        }),
      ).toThrow('after the row');
      expect(await c.read('a')).toBe(1);
    })();
  });

  it('does not keep an answer whose table was written while it was read', async () => {
    const c = setup();
    await c.read('a');
    // The second ask would be kept, but a write to a lands while it is read.
    await c.cache.get(
      'a:a',
      () => {
        c.cache.writing('a', () => c.insert('a'));
        return Promise.resolve(0);
      },
      ['a'],
    );
    expect(await c.read('a')).toBe(1);
    // A write to another table meanwhile does not stop an answer being kept.
    await c.read('b');
    await c.cache.get(
      'b:b',
      () => {
        c.cache.writing('a', () => c.insert('a'));
        return Promise.resolve(c.db.prepare('SELECT COUNT(*) FROM b').pluck().get());
      },
      ['b'],
    );
    const before = c.computed.b;
    await c.read('b');
    expect(c.computed.b).toBe(before);
  });

  it('drops every answer when another connection commits, whatever tables it wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'callbench-read-cache-'));
    try {
      const c = setup(join(dir, 'store.db'));
      const theirs = new Database(join(dir, 'store.db'));
      try {
        await kept(() => c.read('b'));
        theirs.exec('INSERT INTO a VALUES (1)');
        await c.read('b');
        expect(c.computed.b).toBe(3);
        await kept(() => c.read('b'));
        theirs.exec('INSERT INTO b VALUES (1)');
        expect(await c.read('b')).toBe(1);
      } finally {
        theirs.close();
      }
    } finally {
      db?.close();
      db = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
