import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRole, startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir, type TestServer } from '../helpers/server.js';
import type { Target } from '../helpers/target.js';
import { toolFixture } from './fixture.js';

describe('composite and database tools', () => {
  const f = toolFixture();
  const { create, test } = f;
  // The servers exist once the fixture's beforeAll has run.
  let s: TestServer;
  let t: Target;
  beforeAll(() => {
    ({ s, t } = f);
  });

  describe('composite', () => {
    beforeAll(async () => {
      await create({
        name: 'lookup',
        type: 'api',
        config: { url: `${t.url}/orders/{orderId}` },
        parameters: [{ name: 'orderId', type: 'string', required: true }],
        responseMapping: { tracking: 'order.tracking', status: 'order.status' },
      });
      await create({
        name: 'notify',
        type: 'api',
        config: { method: 'POST', url: `${t.url}/echo` },
        parameters: [{ name: 'tracking', type: 'string', required: true }],
        responseMapping: { sent: 'body.tracking' },
      });
      await create({
        name: 'slow_a',
        type: 'api',
        config: { url: `${t.url}/slow?ms=300` },
        responseMapping: { a: 'slow' },
      });
      await create({
        name: 'slow_b',
        type: 'api',
        config: { url: `${t.url}/slow?ms=300` },
        responseMapping: { b: 'slow' },
      });
      await create({ name: 'fails', type: 'api', config: { url: `${t.url}/status?code=500` } });
      await create({
        name: 'track_and_notify',
        type: 'composite',
        aggregateResults: true,
        parameters: [{ name: 'orderId', type: 'string', required: true }],
        steps: [
          { tool: 'lookup', params: ['orderId'] },
          { tool: 'notify', params: ['tracking'], dependsOn: 'lookup' },
        ],
      });
    });

    it("runs steps in dependency order, feeding a step's mapped result to the next", async () => {
      const res = await test('track_and_notify', { parameters: { orderId: 'A7' } });
      expect(res.body).toMatchObject({
        success: true,
        result: { lookup: { tracking: 'TRK1', status: 'shipped' }, notify: { sent: 'TRK1' } },
      });
      await create({
        name: 'last_only',
        type: 'composite',
        parameters: [{ name: 'orderId', type: 'string' }],
        steps: [
          { tool: 'lookup', params: ['orderId'] },
          { tool: 'notify', params: ['tracking'], dependsOn: 'lookup' },
        ],
      });
      expect((await test('last_only', { parameters: { orderId: 'A7' } })).body.result).toEqual({
        sent: 'TRK1',
      });
    });

    it('runs independent steps in parallel', async () => {
      await create({
        name: 'both',
        type: 'composite',
        aggregateResults: true,
        steps: [
          { tool: 'slow_a', params: [] },
          { tool: 'slow_b', params: [] },
        ],
      });
      const res = await test('both');
      expect(res.body).toMatchObject({
        success: true,
        result: { slow_a: { a: true }, slow_b: { b: true } },
      });
      // In parallel on the target's own clock: the second step reached it before the first was
      // answered, however busy the machine.
      const [a, b] = t.slowSpans.slice(-2).sort((x, y) => x.startMs - y.startMs);
      expect(b!.startMs).toBeLessThan(a!.endMs);
    });

    it('a failing step fails the composite, naming the step; later steps do not run', async () => {
      await create({
        name: 'broken_chain',
        type: 'composite',
        steps: [
          { tool: 'fails', params: [] },
          { tool: 'slow_a', params: [], dependsOn: 'fails' },
        ],
      });
      t.hits.delete('/slow');
      const res = await test('broken_chain');
      expect(res.body).toMatchObject({
        success: false,
        error: {
          type: 'http_error',
          step: 'fails',
          message: expect.stringContaining('Step fails failed'),
        },
      });
      expect(t.hits.get('/slow')).toBeUndefined();
    });

    it('a step whose parameters cannot be supplied is a 400 naming the step', async () => {
      await create({
        name: 'no_tracking',
        type: 'composite',
        steps: [{ tool: 'notify', params: ['tracking'] }],
      });
      const res = await test('no_tracking');
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { path: 'steps.notify.parameters.tracking', message: 'is required' },
      ]);
    });

    it('each step is logged as its own call too', async () => {
      const before = (await s.call('GET', '/v1/tools/lookup/analytics')).body.usage.totalCalls;
      await test('track_and_notify', { parameters: { orderId: 'B1' } });
      expect((await s.call('GET', '/v1/tools/lookup/analytics')).body.usage.totalCalls).toBe(
        before + 1,
      );
    });
  });

  describe('database: SQLite', () => {
    let file: string;
    beforeAll(async () => {
      file = join(tempDir(), 'crm.db');
      const db = new Database(file);
      db.exec(
        "CREATE TABLE customers (id TEXT, name TEXT, tier TEXT); INSERT INTO customers VALUES ('c1', 'Ann', 'gold'), ('c2', 'Bob', 'silver'), ('c3', 'Cy', 'gold')",
      );
      db.close();
      await create({
        name: 'customers',
        type: 'database',
        config: {
          driver: 'sqlite',
          connection: file,
          query:
            "SELECT id, name FROM customers WHERE tier = :tier AND name != ':tier' ORDER BY id",
        },
        parameters: [{ name: 'tier', type: 'string', required: true }],
      });
    });

    it('binds named parameters and answers the rows', async () => {
      expect((await test('customers', { parameters: { tier: 'gold' } })).body).toMatchObject({
        success: true,
        result: [
          { id: 'c1', name: 'Ann' },
          { id: 'c3', name: 'Cy' },
        ],
      });
      expect(
        (await test('customers', { parameters: { tier: "gold' OR '1'='1" } })).body.result,
      ).toEqual([]);
    });

    it('is read-only by the driver: a write fails and changes nothing', async () => {
      await create({
        name: 'sneaky',
        type: 'database',
        config: {
          driver: 'sqlite',
          connection: file,
          query: "UPDATE customers SET tier = 'none' RETURNING id",
        },
      });
      expect((await test('sneaky')).body).toMatchObject({
        success: false,
        error: { type: 'query_error' },
      });
      const db = new Database(file, { readonly: true });
      expect(db.prepare("SELECT COUNT(*) AS n FROM customers WHERE tier = 'none'").get()).toEqual({
        n: 0,
      });
      db.close();
    });

    it('refuses at creation a query naming a parameter the tool does not have', async () => {
      const res = await s.call('POST', '/v1/tools', {
        name: 'bad_q',
        type: 'database',
        config: {
          driver: 'sqlite',
          connection: file,
          query: 'SELECT * FROM customers WHERE id = :customerId',
        },
      });
      expect(res.body.error.details).toEqual([
        { path: 'config.query', message: ':customerId names no parameter' },
      ]);
    });

    it('a missing database file is not_found', async () => {
      await create({
        name: 'nofile',
        type: 'database',
        config: { driver: 'sqlite', connection: '/nonexistent/x.db', query: 'SELECT 1' },
      });
      expect((await test('nofile')).body.error.type).toBe('not_found');
    });
  });

  describe('database: PostgreSQL (a real server on 127.0.0.1)', () => {
    let server: Postgres;
    let reader: string; // a plain role: tools refuse superusers
    beforeAll(async () => {
      server = await startPostgres();
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      await client.query(
        "CREATE TABLE orders (id text PRIMARY KEY, status text, total numeric); INSERT INTO orders VALUES ('o1', 'open', 12.5), ('o2', 'closed', 99)",
      );
      // A read that writes underneath: only the READ ONLY transaction stops it.
      await client.query(
        "CREATE FUNCTION close_all() RETURNS bigint LANGUAGE sql AS $$ WITH u AS (UPDATE orders SET status = 'x' RETURNING 1) SELECT count(*) FROM u $$",
      );
      await client.end();
      reader = await createRole(server.url, 'reader', ['GRANT SELECT, UPDATE ON orders TO reader']);
      await create({
        name: 'pg_orders',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: reader,
          query:
            "SELECT id, status FROM orders WHERE status = :status AND id::text <> ':status' ORDER BY id",
        },
        parameters: [{ name: 'status', type: 'string', required: true }],
        responseMapping: { first: '0.id' },
      });
    }, 60_000);
    afterAll(() => server?.stop());

    it('binds :name parameters as $n and answers the rows', async () => {
      expect((await test('pg_orders', { parameters: { status: 'open' } })).body).toMatchObject({
        success: true,
        result: { first: 'o1' },
      });
    });

    it('runs inside a READ ONLY transaction: writes are refused', async () => {
      const update = await s.call('POST', '/v1/tools', {
        name: 'pg_write',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: reader,
          query: "UPDATE orders SET status = 'x' RETURNING id",
        },
      });
      expect(update.body.error.details).toEqual([
        { path: 'config.query', message: 'UPDATE writes data' },
      ]);
      // A role allowed to update, through a function a SELECT calls, still cannot write.
      await create({
        name: 'pg_write',
        type: 'database',
        config: { driver: 'postgres', connection: reader, query: 'SELECT close_all() AS n' },
      });
      expect((await test('pg_write')).body).toMatchObject({
        success: false,
        error: { type: 'query_error', message: expect.stringContaining('read-only') },
      });
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      expect(
        (await client.query("SELECT count(*)::int AS n FROM orders WHERE status = 'x'")).rows[0].n,
      ).toBe(0);
      await client.end();
    });

    it('wrong credentials are auth_error, an unreachable server network_error; the dry run masks the password', async () => {
      await create({
        name: 'pg_badpw',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: reader.replace('reader-pass', 'wrong'),
          query: 'SELECT 1',
        },
      });
      expect((await test('pg_badpw')).body.error.type).toBe('auth_error');
      await create({
        name: 'pg_down',
        type: 'database',
        config: {
          driver: 'postgres',
          connection: 'postgres://u:p@127.0.0.1:1/db',
          query: 'SELECT 1',
          timeoutMs: 2000,
        },
      });
      expect((await test('pg_down')).body.error.type).toBe('network_error');
      const dry = await test('pg_orders', { parameters: { status: 'open' }, dryRun: true });
      expect(dry.body.request.connection).toBe(reader.replace('reader-pass', '****'));
    });
  });
});
