import Database from 'better-sqlite3';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { openDatabase } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { tempDir } from '../helpers/server.js';

describe('store and migrations', () => {
  it('opens in WAL mode with foreign keys on and records each migration with a checksum', () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'a.db'));
    const result = migrate(db, join(dir, 'backups'));
    expect(result).toEqual({ applied: migrations.map((m) => m.version), backup: null });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const rows = db.prepare('SELECT version, checksum FROM schema_migrations').all() as {
      version: number;
      checksum: string;
    }[];
    expect(rows[0]).toMatchObject({
      version: 1,
      checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(migrate(db, join(dir, 'backups')).applied).toEqual([]);
    db.close();
  });

  it('backs up a non-empty store with VACUUM INTO before applying new migrations', () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'a.db'));
    migrate(db, join(dir, 'backups'));
    db.prepare(
      "INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'keep me', '2026-01-01T00:00:00Z')",
    ).run();
    const next = [
      ...migrations,
      {
        version: 999,
        name: 'test addition',
        sqlite: 'CREATE TABLE extra (id TEXT)',
        postgres: 'CREATE TABLE extra (id TEXT)',
      },
    ];
    const result = migrate(db, join(dir, 'backups'), next);
    expect(result.applied).toEqual([999]);
    expect(result.backup && existsSync(result.backup)).toBe(true);
    const copy = new Database(result.backup!, { readonly: true });
    expect(copy.prepare('SELECT name FROM workspaces').get()).toEqual({ name: 'keep me' });
    copy.close();
    db.close();
  });

  it('refuses a store written by a newer build, naming its version, and changes nothing', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'callbench.db'));
    migrate(db, join(dir, 'backups'));
    db.prepare(
      "INSERT INTO schema_migrations VALUES (42, 'from the future', 'abc', '2030-01-01T00:00:00Z')",
    ).run();
    db.close();
    const engine = createEngine({ dataDir: dir, exclusive: false });
    await expect(engine.start()).rejects.toThrow(
      new RegExp(
        `newer Callbench \\(schema version 42, "from the future"\\).*up to ${migrations.length}`,
      ),
    );
    const again = new Database(join(dir, 'callbench.db'));
    expect(again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({
      n: migrations.length + 1,
    });
    again.close();
  });

  it("refuses a store whose recorded migration differs from this build's", () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'a.db'));
    migrate(db, join(dir, 'backups'));
    db.prepare("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1").run();
    expect(() => migrate(db, join(dir, 'backups'))).toThrow(/differs from this build/);
    db.close();
  });

  it("one engine per data dir: a second is refused with a clear message; a dead owner's lock is taken over", async () => {
    const dir = tempDir();
    const first = createEngine({ dataDir: dir });
    await first.start();
    const second = createEngine({ dataDir: dir });
    await expect(second.start()).rejects.toThrow(
      /Another Callbench engine \(pid \d+\) is already using/,
    );
    // The CLI's short commands share the store beside it.
    const cli = createEngine({ dataDir: dir, exclusive: false });
    await cli.start();
    expect((await cli.invoke('workspaces.list', {})).data).toMatchObject({
      workspaces: [{ name: 'Default workspace' }],
    });
    await cli.stop();
    await first.stop();
    writeFileSync(join(dir, 'callbench.lock'), '999999999');
    const third = createEngine({ dataDir: dir });
    expect(await third.start()).toEqual({});
    await third.stop();
    expect(readdirSync(dir)).not.toContain('callbench.lock');
  });

  it('a cached list never outlives a write, also one made by another process on the same file', async () => {
    const dir = tempDir();
    const engine = createEngine({ dataDir: dir });
    await engine.start();
    const ws = (await engine.store.workspaces.list())[0]!.id;
    const list = async () =>
      (
        (await engine.invoke('personas.list', { workspace_id: ws })).data as {
          personas: { name: string }[];
        }
      ).personas.map((p) => p.name);
    await engine.invoke('personas.create', { workspace_id: ws, name: 'First', prompt: 'p' });
    expect(await list()).toEqual(['First']);
    expect(await list()).toEqual(['First']);
    const other = new Database(join(dir, 'callbench.db'));
    other.prepare("UPDATE personas SET name = 'Renamed elsewhere'").run();
    other.close();
    expect(await list()).toEqual(['Renamed elsewhere']);
    await engine.stop();
  });

  it('generates one API key on the first start only, and starts with one workspace', async () => {
    const dir = tempDir();
    const engine = createEngine({ dataDir: dir });
    expect((await engine.start()).firstApiKey).toMatch(/^cbk_/);
    await engine.stop();
    const again = createEngine({ dataDir: dir });
    expect((await again.start()).firstApiKey).toBeUndefined();
    expect(await again.store.workspaces.count()).toBe(1);
    await again.stop();
  });
});
