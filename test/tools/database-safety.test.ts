import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir, type TestServer } from '../helpers/server.js';
import { toolFixture } from './fixture.js';

// Database tools only read, whatever text a tool holds: one statement, parameterised, through the
// extended protocol, read-only, and a runaway query never blocks the engine.
describe('database tools cannot write or stall the engine', () => {
  const f = toolFixture();
  let s: TestServer;
  beforeAll(() => {
    s = f.s;
  });

  describe('PostgreSQL (a real server on 127.0.0.1)', () => {
    let server: Postgres;
    const count = async () => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        return (await client.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n as number;
      } finally {
        await client.end();
      }
    };
    beforeAll(async () => {
      server = await startPostgres();
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      await client.query(
        "CREATE TABLE accounts (id text PRIMARY KEY); INSERT INTO accounts VALUES ('a1'), ('a2')",
      );
      await client.end();
    }, 60_000);
    afterAll(() => server?.stop());

    it('refuses text with more than one statement at save, naming config.query', async () => {
      for (const query of [
        'SELECT 1; COMMIT; DROP TABLE accounts',
        "SELECT ';' AS semi; DELETE FROM accounts",
        'SELECT $$;$$ AS a; SELECT 2',
      ]) {
        const res = await s.call('POST', '/v1/tools', {
          name: 'multi',
          type: 'database',
          config: { driver: 'postgres', connection: server.url, query },
        });
        expect(res.status, query).toBe(400);
        expect(res.body.error.details).toContainEqual({
          path: 'config.query',
          message: expect.stringContaining('one statement'),
        });
      }
      // A semicolon inside a string, a comment or dollar quotes, or one at the end, is not a second statement.
      await f.create({
        name: 'one_statement',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: server.url,
          query: "SELECT ';' AS a, $x$;$x$ AS b -- ; not a statement\n;  ",
        },
      });
      expect((await f.test('one_statement')).body).toMatchObject({
        success: true,
        result: [{ a: ';', b: ';' }],
      });
      expect(await count()).toBe(2);
    });

    it.each([
      ['delete', 'DELETE FROM accounts RETURNING id'],
      ['cte_delete', 'WITH d AS (DELETE FROM accounts RETURNING id) SELECT * FROM d'],
      ['for_update', 'SELECT * FROM accounts FOR UPDATE'],
    ])(
      'a data-modifying statement (%s) fails read-only and changes nothing',
      async (name, query) => {
        await f.create({
          name: `pg_${name}`,
          type: 'database',
          config: { driver: 'postgres', connection: server.url, query },
        });
        expect((await f.test(`pg_${name}`)).body).toMatchObject({
          success: false,
          error: { type: 'query_error', message: expect.stringMatching(/read-only/) },
        });
        expect(await count()).toBe(2);
      },
    );

    it('cannot end other sessions: pg_terminate_backend is refused', async () => {
      const bystander = new pg.Client({ connectionString: server.url });
      await bystander.connect();
      let ended = false;
      bystander.on('error', () => (ended = true));
      const pid = (await bystander.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      await f.create({
        name: 'pg_terminate',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: server.url,
          query: 'SELECT pg_terminate_backend(:pid) AS ended',
        },
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
          connection: server.url,
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
      const asked = Date.now();
      expect((await s.call('GET', '/v1/tools')).status).toBe(200);
      expect(Date.now() - asked).toBeLessThan(500);
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
