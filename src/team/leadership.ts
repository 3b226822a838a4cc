import pg from 'pg';

export interface LeadershipOptions {
  url: string;
  /** The lock's name: of all instances asking for the same name, one leads at a time. */
  name: string;
  /** Starts the work only the leader does. */
  onLead: () => Promise<void> | void;
  /** Stops it: the lock was lost (the connection broke) or the process is stopping. */
  onLose: () => Promise<void> | void;
  log: (message: string) => void;
  /** How often an instance that does not lead asks again (default 10 s). */
  retryMs?: number;
}

/**
 * Server-side keepalives on the lock's connection: a leader whose machine went off without closing
 * its connection is found dead within about 25 seconds, its session ended and the lock freed.
 */
const KEEPALIVES = [
  'SET tcp_keepalives_idle = 10',
  'SET tcp_keepalives_interval = 5',
  'SET tcp_keepalives_count = 3',
];

/**
 * One instance at a time, among all sharing a PostgreSQL database, runs the work that must not run
 * twice (schedules, provider sync, alert evaluation). It holds a session advisory lock on a
 * connection of its own: when the leader dies its session ends, the lock is free, and another
 * instance takes it at its next try (within retryMs, plus the keepalive time when a machine
 * vanished without a word).
 */
export function lead(options: LeadershipOptions): { stop(): Promise<void> } {
  const retryMs = options.retryMs ?? 10_000;
  let client: pg.Client | null = null;
  let leading = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const lose = async (why: string): Promise<void> => {
    const old = client;
    client = null;
    if (leading) {
      leading = false;
      options.log(`${options.name}: no longer leading (${why})`);
      // Stopped before the lock goes with the connection: never two leaders at once.
      await options.onLose();
    }
    if (old) await old.end().catch(() => undefined);
  };

  async function attempt(): Promise<void> {
    if (!client) {
      const c = new pg.Client({
        connectionString: options.url,
        application_name: options.name,
        // A connection that went silent (a partition, a paused machine) is found out, not trusted.
        keepAlive: true,
        connectionTimeoutMillis: 10_000,
        query_timeout: 10_000,
      });
      // A broken connection loses the lock: stop leading before another instance starts.
      c.on('error', (err) => void lose(err.message).then(schedule));
      await c.connect();
      for (const statement of KEEPALIVES) await c.query(statement);
      // Stopped while connecting: this connection is nobody's, and would keep the process alive.
      if (stopped) {
        await c.end();
        return;
      }
      client = c;
    }
    if (leading) {
      // Still connected, so still holding the lock: a query that fails or times out ends it.
      await client.query('SELECT 1');
      return;
    }
    const { rows } = await client.query<{ held: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held',
      [options.name],
    );
    if (rows[0]?.held && !leading && !stopped) {
      leading = true;
      options.log(`${options.name}: leading`);
      await options.onLead();
      // Lost while starting: what started after the loss was stopped must stop too.
      if (!leading) await options.onLose();
    }
  }

  /** Asks for the lock again (or, leading, checks the connection holding it) every retryMs. */
  function schedule(): void {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      attempt()
        .catch((err: unknown) => lose((err as Error).message))
        .finally(schedule);
    }, retryMs);
    timer.unref();
  }

  void attempt()
    .catch((err: unknown) => lose((err as Error).message))
    .finally(schedule);

  return {
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await lose('stopping');
    },
  };
}
