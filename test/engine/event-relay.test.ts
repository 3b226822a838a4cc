import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type EngineEvent } from '../../src/events.js';
import { RELAY_APPLICATION_NAME, relayEvents } from '../../src/team/event-relay.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';

let cluster: Postgres;
let admin: pg.Client;
/** The relays' own database: a test shuts it to new connections, which the admin's cannot be. */
let url: string;
let channels = 0;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE relay');
  const relayDb = new URL(cluster.url);
  relayDb.pathname = '/relay';
  url = relayDb.href;
});
afterAll(async () => {
  await admin?.end();
  cluster?.stop();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  // Whatever a test did to them, closed relays leave no connection behind.
  await until(async () => (await relayConnections()) === 0);
});

/** A bus with a relay on the test database: what its subscribers received, what it logged. */
async function server(channel: string) {
  const events = new EventBus();
  const received: EngineEvent[] = [];
  const logs: string[] = [];
  events.subscribe((event) => received.push(event));
  const relay = await relayEvents({ url, events, channel, log: (m) => logs.push(m) });
  let closed = false;
  const close = async () => {
    if (!closed) await relay.close();
    closed = true;
  };
  cleanups.push(close);
  return { events, received, logs, close };
}

/** Two servers sharing one channel of their own (tests run in any order and must not meet). */
async function pair() {
  const channel = `relay_test_${++channels}`;
  return { channel, a: await server(channel), b: await server(channel) };
}

async function until(check: () => boolean | Promise<boolean>, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

const relayConnections = async (): Promise<number> =>
  (
    await admin.query<{ n: number }>(
      'SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [RELAY_APPLICATION_NAME],
    )
  ).rows[0]!.n;

/** Every NOTIFY on the channel, as a third listener sees them. */
async function watch(channel: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  const payloads: string[] = [];
  client.on('notification', (msg) => payloads.push(msg.payload ?? ''));
  await client.connect();
  await client.query(`LISTEN ${channel}`);
  cleanups.push(() => client.end());
  return payloads;
}

describe('event relay', () => {
  it("carries an event to the other server's subscribers as it was, and never echoes it", async () => {
    const { a, b } = await pair();
    a.events.emit('sync.started', { agentId: 'agent-1' });
    await until(() => b.received.length === 1);
    expect(b.received[0]).toEqual(a.received[0]);
    expect(b.received[0]).toMatchObject({ type: 'sync.started', data: { agentId: 'agent-1' } });
    await settle();
    expect(a.received).toHaveLength(1);
    expect(b.received).toHaveLength(1);
  });

  it('carries events both ways and never sends a received event back', async () => {
    const { channel, a, b } = await pair();
    const notifies = await watch(channel);
    a.events.emit('execution.cancelled', { executionId: 'from-a' });
    await until(() => b.received.length === 1);
    b.events.emit('execution.cancelled', { executionId: 'from-b' });
    await until(() => a.received.length === 2);
    expect(a.received.map((e) => e.data)).toEqual([
      { executionId: 'from-a' },
      { executionId: 'from-b' },
    ]);
    await settle();
    expect(b.received.map((e) => e.data)).toEqual([
      { executionId: 'from-a' },
      { executionId: 'from-b' },
    ]);
    expect(notifies).toHaveLength(2);
  });

  it('does not NOTIFY an oversized event, and says so once per event type', async () => {
    const { channel, a, b } = await pair();
    const notifies = await watch(channel);
    const body = 'x'.repeat(9000);
    a.events.emit('notification', { alertId: 'al-1', title: 'big', body });
    a.events.emit('notification', { alertId: 'al-2', title: 'big', body });
    a.events.emit('sync.started', { agentId: 'small' });
    await until(() => b.received.length === 1);
    expect(b.received[0]?.type).toBe('sync.started');
    expect(notifies).toHaveLength(1);
    expect(a.logs.filter((line) => line.includes('too large'))).toHaveLength(1);
  });

  it('reconnects after its connection is killed, and events flow again', async () => {
    const { a, b } = await pair();
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [RELAY_APPLICATION_NAME],
    );
    await until(() => [a, b].every((s) => s.logs.some((l) => l.includes('lost'))));
    await until(() => [a, b].every((s) => s.logs.some((l) => l.includes('reconnected'))), 5000);
    expect(a.logs.filter((l) => l.includes('lost'))).toHaveLength(1);
    a.events.emit('sync.finished', { agentId: 'agent-2', ok: true });
    await until(() => b.received.length === 1);
    b.events.emit('sync.finished', { agentId: 'agent-3', ok: false });
    await until(() => a.received.length === 2);
  });

  it('keeps retrying while the database refuses connections, and logs the loss once', async () => {
    const { a, b } = await pair();
    await admin.query('ALTER DATABASE relay WITH ALLOW_CONNECTIONS false');
    try {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [RELAY_APPLICATION_NAME],
      );
      // Retries at 0.5 s and 1 s fail meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1800));
    } finally {
      await admin.query('ALTER DATABASE relay WITH ALLOW_CONNECTIONS true');
    }
    await until(() => [a, b].every((s) => s.logs.some((l) => l.includes('reconnected'))), 5000);
    expect(a.logs).toHaveLength(2);
    a.events.emit('sync.started', { agentId: 'agent-4' });
    await until(() => b.received.length === 1);
  });

  it('drops events while disconnected instead of queueing them', async () => {
    const { a, b } = await pair();
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [RELAY_APPLICATION_NAME],
    );
    await until(() => a.logs.some((l) => l.includes('lost')));
    a.events.emit('sync.started', { agentId: 'while-down' });
    await until(() => [a, b].every((s) => s.logs.some((l) => l.includes('reconnected'))), 5000);
    a.events.emit('sync.started', { agentId: 'after' });
    await until(() => b.received.length === 1);
    await settle();
    expect(b.received.map((e) => e.data)).toEqual([{ agentId: 'after' }]);
  });

  it('close() ends its connection and stops relaying', async () => {
    const { a, b } = await pair();
    expect(await relayConnections()).toBe(2);
    await a.close();
    await b.close();
    await until(async () => (await relayConnections()) === 0);
    a.events.emit('sync.started', { agentId: 'after-close' });
    await settle();
    expect(b.received).toHaveLength(0);
  });

  it('refuses a channel that is not a plain identifier', async () => {
    await expect(
      relayEvents({ url, events: new EventBus(), channel: 'x"; DROP', log: () => {} }),
    ).rejects.toThrow(/identifier/);
  });
});
