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
