import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRole, startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir, type TestServer } from '../helpers/server.js';
import { toolFixture } from './fixture.js';

// Database tools only read, whatever text a tool holds: one read statement (decided by parsing),
// parameterised, through the extended protocol, read-only, as a role without server-side powers,
// and a runaway query never blocks the engine.
describe('database tools cannot write or stall the engine', () => {
  const f = toolFixture();
  let s: TestServer;
  beforeAll(() => {
    s = f.s;
  });

  describe('PostgreSQL (a real server on 127.0.0.1)', () => {
    let server: Postgres;
    let reader: string; // a plain role: LOGIN and SELECT on accounts
    const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    };
    const count = () =>
      admin(
        async (c) => (await c.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n as number,
      );
    const pgTool = (name: string, query: string, connection = reader) => ({
      name,
      type: 'database',
      config: { driver: 'postgres', connection, query },
    });
    const exploit =
      "DO $$BEGIN RESET ROLE; EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch pwned'''; END$$";
    beforeAll(async () => {
      server = await startPostgres();
      await admin((c) =>
        c.query(
          "CREATE TABLE accounts (id text PRIMARY KEY); INSERT INTO accounts VALUES ('a1'), ('a2')",
        ),
      );
      reader = await createRole(server.url, 'reader', ['GRANT SELECT ON accounts TO reader']);
    }, 60_000);
    afterAll(() => server?.stop());

    it('refuses text with more than one statement at save, naming config.query', async () => {
      for (const query of [
        'SELECT 1; COMMIT; DROP TABLE accounts',
        "SELECT ';' AS semi; DELETE FROM accounts",
        'SELECT $$;$$ AS a; SELECT 2',
      ]) {
        const res = await s.call('POST', '/v1/tools', pgTool('multi', query));
        expect(res.status, query).toBe(400);
        expect(res.body.error.details).toContainEqual({
          path: 'config.query',
          message: expect.stringContaining('one statement'),
        });
      }
      // A semicolon inside a string, a comment or dollar quotes, or one at the end, is not a second statement.
      await f.create(
        pgTool('one_statement', "SELECT ';' AS a, $x$;$x$ AS b -- ; not a statement\n;  "),
      );
      expect((await f.test('one_statement')).body).toMatchObject({
        success: true,
        result: [{ a: ';', b: ';' }],
      });
      expect(await count()).toBe(2);
    });

    it.each([
      ['do', exploit],
      ['copy', "COPY (SELECT 1) TO PROGRAM 'touch pwned'"],
      ['call', 'CALL some_procedure()'],
      ['set', 'SET ROLE postgres'],
      ['reset', 'RESET ROLE'],
      ['delete', 'DELETE FROM accounts RETURNING id'],
      ['cte_delete', 'WITH d AS (DELETE FROM accounts RETURNING id) SELECT * FROM d'],
      ['explain_analyze_delete', 'EXPLAIN ANALYZE DELETE FROM accounts'],
      ['select_into', 'SELECT * INTO stolen FROM accounts'],
    ])(
      'refuses a statement that is not a read (%s) at create and update, naming config.query',
      async (name, query) => {
        const created = await s.call('POST', '/v1/tools', pgTool(`pg_${name}`, query));
        expect(created.status).toBe(400);
        expect(created.body.error.code).toBe('validation_error');
        expect(created.body.error.details).toEqual([
          { path: 'config.query', message: expect.any(String) },
        ]);
        await f.create(pgTool(`pg_${name}`, 'SELECT id FROM accounts'));
        const updated = await s.call('PUT', `/v1/tools/pg_${name}`, pgTool(`pg_${name}`, query));
        expect(updated.status).toBe(400);
        expect(updated.body.error.details).toEqual([
          { path: 'config.query', message: expect.any(String) },
        ]);
        expect((await s.call('GET', `/v1/tools/pg_${name}`)).body.config.query).toBe(
          'SELECT id FROM accounts',
        );
        expect(await count()).toBe(2);
      },
    );

    it('reads with WITH, VALUES, TABLE, SHOW and EXPLAIN', async () => {
      for (const [name, query] of [
        ['with', 'WITH a AS (SELECT id FROM accounts) SELECT count(*)::int AS n FROM a'],
        ['values', 'VALUES (1)'],
        ['table', 'TABLE accounts'],
        ['show', 'SHOW transaction_read_only'],
        ['explain', 'EXPLAIN (COSTS OFF) SELECT * FROM accounts'],
        ['explain_analyze', 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM accounts'],
      ] as const) {
        await f.create(pgTool(`pg_read_${name}`, query));
        expect((await f.test(`pg_read_${name}`)).body, query).toMatchObject({ success: true });
      }
      expect(await count()).toBe(2);
    });

    it('reads strings as the check at save did, whatever the role sets', async () => {
      const oldStyle = await createRole(server.url, 'old_style', [
        'ALTER ROLE old_style SET standard_conforming_strings = off',
      ]);
      // Checked at save with backslashes as plain characters: so it runs.
      await f.create(pgTool('pg_backslash', "SELECT 'a\\' AS s, E'b\\'' AS e", oldStyle));
      expect((await f.test('pg_backslash')).body).toMatchObject({
        success: true,
        result: [{ s: 'a\\', e: "b'" }],
      });
    });

    it('a locking SELECT fails read-only and changes nothing', async () => {
      await f.create(pgTool('pg_for_update', 'SELECT * FROM accounts FOR UPDATE'));
      expect((await f.test('pg_for_update')).body).toMatchObject({
        success: false,
        error: { type: 'query_error', message: expect.stringMatching(/read-only/) },
      });
      expect(await count()).toBe(2);
    });

    it('refuses a superuser connection at create and update, naming config.connection', async () => {
      const res = await s.call('POST', '/v1/tools', pgTool('pg_super', 'SELECT 1', server.url));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_error',
        details: [
          {
            path: 'config.connection',
            message: expect.stringMatching(/"postgres" connects as superuser/),
          },
        ],
      });
      // The exploit of old: refused for its statement and for its role, both named at once.
      const both = await s.call('POST', '/v1/tools', pgTool('pg_exploit', exploit, server.url));
      expect(both.status).toBe(400);
      expect(both.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
        'config.connection',
        'config.query',
      ]);
      await f.create(pgTool('pg_becomes_super', 'SELECT 1 AS one'));
      const updated = await s.call(
        'PUT',
        '/v1/tools/pg_becomes_super',
        pgTool('pg_becomes_super', 'SELECT 1 AS one', server.url),
      );
      expect(updated.status).toBe(400);
      expect(updated.body.error.details).toEqual([
        { path: 'config.connection', message: expect.stringContaining('connects as superuser') },
      ]);
      expect((await f.test('pg_becomes_super')).body.result).toEqual([{ one: 1 }]);
    });

    it('refuses a role in a server-file or server-program role, or in a superuser role', async () => {
      const cases: [string, string[], RegExp][] = [
        ['runner', ['GRANT pg_execute_server_program TO runner'], /pg_execute_server_program/],
        ['writer', ['GRANT pg_write_server_files TO writer'], /pg_write_server_files/],
        ['filereader', ['GRANT pg_read_server_files TO filereader'], /pg_read_server_files/],
        ['signaller', ['GRANT pg_signal_backend TO signaller'], /pg_signal_backend/],
        [
          'inheritor',
          [
            'CREATE ROLE admins SUPERUSER NOLOGIN',
            'CREATE ROLE middle NOLOGIN',
            'GRANT admins TO middle',
            'GRANT middle TO inheritor',
          ],
          /superuser role "admins"/,
        ],
      ];
      for (const [role, grants, named] of cases) {
        const url = await createRole(server.url, role, grants);
        const res = await s.call('POST', '/v1/tools', pgTool(`pg_${role}`, 'SELECT 1', url));
        expect(res.status, role).toBe(400);
        expect(res.body.error.details).toEqual([
          {
            path: 'config.connection',
            message: expect.stringContaining(`"${role}" is a member of`),
          },
        ]);
        expect(res.body.error.details[0].message).toMatch(named);
      }
    });

    it('refuses again at test a role that gained rights after save, echoed mask or not', async () => {
      const shifty = await createRole(server.url, 'shifty', ['GRANT SELECT ON accounts TO shifty']);
      const tool = await f.create(
        pgTool('pg_shifty', 'SELECT id FROM accounts ORDER BY id', shifty),
      );
      expect((await f.test('pg_shifty')).body).toMatchObject({ success: true });

      await admin((c) => c.query('GRANT pg_execute_server_program TO shifty'));
      const member = await f.test('pg_shifty');
      expect(member.status).toBe(400);
      expect(member.body.error).toMatchObject({
        code: 'validation_error',
        details: [
          {
            path: 'config.connection',
            message: expect.stringContaining('"shifty" is a member of pg_execute_server_program'),
          },
        ],
      });
      // Saving it again with the masked connection it was answered with checks the stored one.
      const { id: _i, version: _v, created_at: _c, updated_at: _u, ...definition } = tool;
      const echoed = await s.call('PUT', '/v1/tools/pg_shifty', definition);
      expect(echoed.status).toBe(400);
      expect(echoed.body.error.details[0].path).toBe('config.connection');

      await admin((c) =>
        c.query('REVOKE pg_execute_server_program FROM shifty; ALTER ROLE shifty SUPERUSER'),
      );
      const superuser = await f.test('pg_shifty');
      expect(superuser.status).toBe(400);
      expect(superuser.body.error.details).toEqual([
        { path: 'config.connection', message: expect.stringContaining('connects as superuser') },
      ]);

      await admin((c) => c.query('ALTER ROLE shifty NOSUPERUSER'));
      expect((await f.test('pg_shifty')).body).toMatchObject({
        success: true,
        result: [{ id: 'a1' }, { id: 'a2' }],
      });
    });

    it('cannot end other sessions: pg_terminate_backend is refused', async () => {
      const bystander = new pg.Client({ connectionString: server.url });
      await bystander.connect();
      let ended = false;
      bystander.on('error', () => (ended = true));
      const pid = (await bystander.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      await f.create({
        ...pgTool(
          'pg_terminate',
          "SELECT set_config('role', session_user, true), pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE pid = :pid",
        ),
        parameters: [{ name: 'pid', type: 'number', required: true }],
      });
      expect((await f.test('pg_terminate', { parameters: { pid } })).body).toMatchObject({
        success: false,
        error: { type: 'query_error' },
      });
      expect((await bystander.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(ended).toBe(false);
      await bystander.end();
    });

    it("ends a query at the tool's timeout with statement_timeout", async () => {
      await f.create({
        name: 'pg_sleepy',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: reader,
          query: 'SELECT pg_sleep(5)',
          timeoutMs: 400,
        },
      });
      const started = Date.now();
      expect((await f.test('pg_sleepy')).body).toMatchObject({
        success: false,
        error: { type: 'timeout' },
      });
      expect(Date.now() - started).toBeLessThan(3_000);
    });
  });

  describe('SQLite', () => {
    let file: string;
    beforeAll(() => {
      file = join(tempDir(), 'shop.db');
      const db = new Database(file);
      db.exec("CREATE TABLE items (id TEXT); INSERT INTO items VALUES ('i1')");
      db.close();
    });

    it('refuses two statements at save', async () => {
      const res = await s.call('POST', '/v1/tools', {
        name: 'lite_multi',
        type: 'database',
        config: { driver: 'sqlite', connection: file, query: 'SELECT 1; DELETE FROM items' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe('config.query');
    });

    it('a runaway query times out while the engine keeps answering', async () => {
      await f.create({
        name: 'lite_runaway',
        type: 'database',
        config: {
          driver: 'sqlite',
          connection: file,
          query:
            'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) AS n FROM c',
          timeoutMs: 1_500,
        },
      });
      const started = Date.now();
      const runaway = f.test('lite_runaway');
      // While the query runs, other requests answer as usual.
      await new Promise((r) => setTimeout(r, 300));
      // Answered while the query still runs (it ends at its 1.5 s timeout): an order of events,
      // not a time, so a busy machine does not fail it.
      const first = await Promise.race([
        s.call('GET', '/v1/tools').then((res) => `tools ${res.status}`),
        runaway.then(() => 'the runaway query'),
      ]);
      expect(first).toBe('tools 200');
      expect((await runaway).body).toMatchObject({ success: false, error: { type: 'timeout' } });
      expect(Date.now() - started).toBeLessThan(5_000);
      // The next query runs as usual.
      await f.create({
        name: 'lite_items',
        type: 'database',
        config: { driver: 'sqlite', connection: file, query: 'SELECT id FROM items' },
      });
      expect((await f.test('lite_items')).body).toMatchObject({
        success: true,
        result: [{ id: 'i1' }],
      });
    });
  });
});
