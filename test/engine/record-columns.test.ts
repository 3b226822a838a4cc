import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordColumns } from '../../src/store/record-columns.js';

interface Thing {
  id: string;
  label: string;
  options: { depth: number } | null;
  on: boolean;
  owner: { id: string; name: string };
}

/** A table of things, its columns named otherwise than the record's fields. */
const THINGS = recordColumns<Thing>({
  id: { column: 'id' },
  label: { column: 'label_text' },
  options: { column: 'options_json', json: true },
  on: { column: 'is_on', flag: true },
  owner: { columns: { id: 'owner_id', name: 'owner_name' } },
});

describe('one column map per table', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec(`CREATE TABLE things (id TEXT PRIMARY KEY, label_text TEXT NOT NULL,
      options_json TEXT, is_on INTEGER NOT NULL, owner_id TEXT NOT NULL, owner_name TEXT NOT NULL)`);
  });
  afterEach(() => db.close());

  const insert = (t: Thing) => {
    const row = THINGS.toRow(t);
    const names = Object.keys(row);
    db.prepare(
      `INSERT INTO things (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`,
    ).run(row);
  };
  const read = (id: string) =>
    db.prepare('SELECT * FROM things WHERE id = ?').get(id) as Record<string, unknown>;

  const thing: Thing = {
    id: 't1',
    label: 'first',
    options: { depth: 3 },
    on: true,
    owner: { id: 'u1', name: 'Ada' },
  };

  it('writes a record to its columns and reads it back the same, in the map order', () => {
    insert(thing);
    insert({ ...thing, id: 't2', options: null, on: false });
    expect(read('t1')).toEqual({
      id: 't1',
      label_text: 'first',
      options_json: '{"depth":3}',
      is_on: 1,
      owner_id: 'u1',
      owner_name: 'Ada',
    });
    // A null JSON field is stored as SQL NULL, not the text 'null'.
    expect(read('t2').options_json).toBeNull();
    const back = THINGS.fromRow(read('t1'));
    expect(back).toEqual(thing);
    expect(Object.keys(back)).toEqual(['id', 'label', 'options', 'on', 'owner']);
    expect(THINGS.fromRow(read('t2'))).toEqual({ ...thing, id: 't2', options: null, on: false });
  });

  it('reads some fields then extra values, and selects exactly their columns', () => {
    insert(thing);
    const select = THINGS.selectList('t', ['owner', 'id', 'label']);
    expect(select).toBe('t.id, t.label_text, t.owner_id, t.owner_name');
    const row = db.prepare(`SELECT ${select} FROM things t`).get() as Record<string, unknown>;
    const item = THINGS.reader(['owner', 'id', 'label'], ['count'])(row, 7);
    expect(item).toEqual({ id: 't1', label: 'first', owner: { id: 'u1', name: 'Ada' }, count: 7 });
    expect(Object.keys(item as object)).toEqual(['id', 'label', 'owner', 'count']);
  });

  it('lets a patch set single columns only, less the fields named', () => {
    expect(THINGS.patchColumns(['id'])).toEqual({
      label: { column: 'label_text' },
      options: { column: 'options_json', json: true },
      on: { column: 'is_on' },
    });
  });
});
