import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { EngineEvent, EventBus } from '../events.js';

/** The relay's connections go by this name in pg_stat_activity (operators and tests find them). */
export const RELAY_APPLICATION_NAME = 'callbench-event-relay';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (its default page size). */
const NOTIFY_LIMIT = 8000;
/** Notifies sent but not yet answered; past this the database is not keeping up and events drop. */
const MAX_PENDING = 1000;
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;

export interface RelayOptions {
  url: string;
  events: EventBus;
  log: (message: string) => void;
  /** The LISTEN channel: a lower-case identifier. */
  channel?: string;
}

/** Another server's notification, checked as far as its shape (a newer server may add types). */
const isRelayed = (value: unknown): value is { origin: string; event: EngineEvent } => {
  const { origin, event } = (value ?? {}) as Record<string, unknown>;
  const { type, at, data } = (event ?? {}) as Record<string, unknown>;
  return (
    [origin, type, at].every((v) => typeof v === 'string') && typeof data === 'object' && !!data
  );
};

/**
 * Carries engine events between servers sharing one PostgreSQL database: every event emitted on
 * this bus is NOTIFYed, and every other server's is delivered here. Events are live signals, not a
 * log: while the connection is down they are dropped, and the relay reconnects with backoff.
 */
class Relay {
  private readonly origin = randomUUID();
  /** Events this relay delivered from elsewhere: never sent back. */
  private readonly delivered = new WeakSet<EngineEvent>();
  private readonly oversized = new Set<string>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private pending = 0;
  private sending: Promise<unknown> = Promise.resolve();
  private failing = false;
  private closed = false;

  constructor(
    private readonly options: RelayOptions,
    private readonly channel: string,
  ) {}

  /** One connection that LISTENs; it becomes current only once listening. */
  connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: RELAY_APPLICATION_NAME,
      // A LISTEN connection only ever receives: without TCP keepalive, one that went silent (a
      // partition, a paused machine) would be trusted forever and events from elsewhere lost.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
    });
    // Without an 'error' listener a dropped connection would crash the process.
    client.on('error', (err) => this.lost(client, err.message));
    client.on('end', () => this.lost(client, 'connection ended'));
    client.on('notification', (msg) => this.receive(msg));
    this.connecting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
      } catch (err) {
        await client.end().catch(() => undefined);
        throw err;
      }
      if (this.closed) await client.end();
      else this.client = client;
    })().finally(() => (this.connecting = null));
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.connecting?.catch(() => undefined);
    await this.client?.end();
  }

  /** While down, or past MAX_PENDING, the event is dropped: a live signal, not a log entry. */
  send(event: EngineEvent): void {
    const client = this.client;
    if (!client || this.delivered.has(event) || this.pending >= MAX_PENDING) return;
    const payload = JSON.stringify({ origin: this.origin, event });
    if (Buffer.byteLength(payload) >= NOTIFY_LIMIT) {
      if (!this.oversized.has(event.type))
        this.options.log(`Event relay: a ${event.type} event is too large to NOTIFY; not relayed`);
      this.oversized.add(event.type);
      return;
    }
    this.pending++;
    // One NOTIFY at a time, each after the last: events reach the others in emit order, and the
    // client is never asked a query while one is running (pg deprecates that).
    this.sending = this.sending
      .then(() => client.query('SELECT pg_notify($1, $2)', [this.channel, payload]))
      .then(
        () => (this.failing = false),
        (err: Error) => {
          // A lost connection is logged as such; a run of failures once, until one goes through.
          if (client !== this.client || this.failing) return;
          this.failing = true;
          this.options.log(`Event relay: NOTIFY failed (${err.message}); events are dropped`);
        },
      )
      .finally(() => this.pending--);
  }

  private receive(msg: pg.Notification): void {
    if (msg.channel !== this.channel || !msg.payload) return;
    let relayed: unknown;
    try {
      relayed = JSON.parse(msg.payload);
    } catch {
      return;
    }
    // PostgreSQL hands our own NOTIFYs back to us too.
    if (!isRelayed(relayed) || relayed.origin === this.origin) return;
    this.delivered.add(relayed.event);
    this.options.events.deliver(relayed.event);
  }

  /** Both 'error' and 'end' arrive for one loss; only the current client's first one counts. */
  private lost(client: pg.Client, reason: string): void {
    if (client !== this.client || this.closed) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.options.log(`Event relay: lost the PostgreSQL connection (${reason}); reconnecting`);
    this.reconnect(FIRST_RETRY_MS);
  }

  private reconnect(delay: number): void {
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect().then(
        () => this.client && this.options.log('Event relay: reconnected to PostgreSQL'),
        () => this.closed || this.reconnect(Math.min(delay * 2, LAST_RETRY_MS)),
      );
    }, delay);
    this.retry.unref();
  }
}

/**
 * Starts relaying `events` through the database at `url`. The first connection must succeed (the
 * returned promise rejects otherwise); later losses are retried until `close()`.
 */
export async function relayEvents(options: RelayOptions): Promise<{ close(): Promise<void> }> {
  const channel = options.channel ?? 'callbench_events';
  // LISTEN takes an identifier, not a bound value: only a plain one is accepted.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel))
    throw new Error(`Event relay channel must be a lower-case identifier: ${channel}`);
  const relay = new Relay(options, channel);
  await relay.connect();
  const unsubscribe = options.events.subscribe((event) => relay.send(event));
  return {
    async close() {
      unsubscribe();
      await relay.close();
    },
  };
}
