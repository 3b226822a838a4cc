import Database from 'better-sqlite3';
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
        return db!.prepare('SELECT COUNT(*) FROM t').pluck().get();
      });
    return { read, computed: () => computed, db };
  };

  it('keeps an answer from its second ask on, so pages read once do not fill the heap', () => {
    const c = setup();
    expect(c.read('a')).toBe(0);
    expect(c.read('a')).toBe(0);
    expect(c.computed()).toBe(2);
    expect(c.read('a')).toBe(0);
    expect(c.read('a')).toBe(0);
    expect(c.computed()).toBe(2);
  });

  it('never answers from before a write', () => {
    const c = setup();
    c.read('a');
    c.read('a');
    c.db.exec('INSERT INTO t VALUES (1)');
    expect(c.read('a')).toBe(1);
    expect(c.computed()).toBe(3);
  });

  it('holds at most its capacity, dropping the least recently used', () => {
    const c = setup();
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      c.read(key);
      c.read(key);
    }
    const before = c.computed();
    c.read('e');
    expect(c.computed()).toBe(before);
    c.read('a');
    expect(c.computed()).toBe(before + 1);
  });
});
