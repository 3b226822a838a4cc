import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { literalRows } from '../../src/store/sql/literal-rows.js';

describe('rows built as object literals', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, b BLOB, note TEXT);
      INSERT INTO t VALUES ('a', 1, 1.5, x'00ff', NULL), ('b', 2, NULL, NULL, 'it''s "quoted"')`);
  });
  afterEach(() => db.close());

  const both = (text: string, parameters: unknown[] = []) => ({
    ours: literalRows(db.prepare(text)).all(parameters),
    driver: db.prepare(text).all(...parameters),
  });

  it('answers the rows the driver answers, by name and value', () => {
    const { ours, driver } = both('SELECT * FROM t ORDER BY id');
    expect(ours).toEqual(driver);
    expect(Object.keys(ours[0] as object)).toEqual(['id', 'n', 'x', 'b', 'note']);
    expect((ours[0] as { b: Buffer }).b).toBeInstanceOf(Buffer);
  });

  it('keeps the last of two columns with one name, as the driver does', () => {
    const { ours, driver } = both('SELECT id, n AS id FROM t WHERE id = ?', ['b']);
    expect(ours).toEqual([{ id: 2 }]);
    expect(ours).toEqual(driver);
  });

  it('takes names no identifier could be, quotes and all', () => {
    const { ours, driver } = both(
      `SELECT 1 AS "a b", 2 AS "x""}; throw 1; //", 3 AS "constructor"`,
    );
    expect(ours).toEqual(driver);
    expect(ours[0]).toEqual({ 'a b': 1, 'x"}; throw 1; //': 2, constructor: 3 });
  });

  it('treats a column named __proto__ as the driver does', () => {
    const { ours, driver } = both(`SELECT x'00ff' AS __proto__, 2 AS n`);
    // Both make the BLOB the row's prototype: objects vitest cannot compare whole.
    expect(Object.getPrototypeOf(ours[0])).toEqual(Object.getPrototypeOf(driver[0]));
    expect(Object.keys(ours[0] as object)).toEqual(Object.keys(driver[0] as object));
    expect((ours[0] as { n: number }).n).toBe(2);
  });

  it('reads the columns again when the table changes under a prepared SELECT *', () => {
    const stmt = literalRows(db.prepare('SELECT * FROM t WHERE id = ?'));
    expect(Object.keys(stmt.all(['a'])[0] as object)).toHaveLength(5);
    db.exec('ALTER TABLE t ADD COLUMN added TEXT');
    db.exec(`UPDATE t SET added = 'new'`);
    expect(stmt.all(['a'])[0]).toMatchObject({ id: 'a', added: 'new' });
  });

  it('iterates rows, and runs writes as the driver does', () => {
    const rows = [...literalRows(db.prepare('SELECT id FROM t ORDER BY id')).iterate([])];
    expect(rows).toEqual([{ id: 'a' }, { id: 'b' }]);
    const write = literalRows(db.prepare('UPDATE t SET n = n + 1'));
    expect(write.reader).toBe(false);
    expect(write.run([]).changes).toBe(2);
  });
});
