import { createServer, type AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { postgresDatabase } from '../../src/store/sql/connect.js';
import { isDatabaseOutage } from '../../src/store/sql/postgres-errors.js';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('isDatabaseOutage', () => {
  it("tells the database's refused connection from another refused connection", async () => {
    const port = await closedPort();
    const db = postgresDatabase(`postgres://u:p@127.0.0.1:${port}/x`);
    try {
      const fromStore = await sql`SELECT 1`.execute(db.kysely).catch((e: unknown) => e);
      expect(fromStore).toMatchObject({ code: 'ECONNREFUSED' });
      expect(isDatabaseOutage(fromStore)).toBe(true);
    } finally {
      await db.close();
    }
    // An agent's dead URL fails the same way, and is the run's own failure.
    const fromAgent = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(isDatabaseOutage(fromAgent)).toBe(false);
    expect(isDatabaseOutage((fromAgent as Error).cause)).toBe(false);
  });

  it("counts pg's lost connections and a server's shutdown codes, not a query's own errors", () => {
    expect(isDatabaseOutage(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('terminating'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('dup'), { code: '23505' }))).toBe(false);
    expect(isDatabaseOutage(new Error('its scenario, persona or agent was deleted'))).toBe(false);
    expect(isDatabaseOutage('Connection terminated')).toBe(false);
  });
});
