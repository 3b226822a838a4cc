import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type pg from 'pg';
import { ALLOW_LOOPBACK_ENV, TEAM_KEY } from '../helpers/team.js';

/** How a bench starts its team server's workers: real `callbench worker` processes. */
export interface WorkerPlan {
  databaseUrl: string;
  brainUrl: string;
  concurrency: number;
  /** Where each worker gets a data dir of its own. */
  root: string;
  /** CALLBENCH_LEASE_SECONDS, for runs where dead workers' work must come back soon. */
  leaseSeconds?: number;
}

/** One worker process; `ready` resolves at its "running up to" line. */
export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  ready: Promise<void>;
  /** What its log said so far. */
  log: WorkerLog;
  /** Milliseconds from its start to its "running up to" line; null until then. */
  bootMs(): number | null;
  exited(): boolean;
}

/** What a worker's output (stdout and stderr alike) said, counted. */
export interface WorkerLog {
  /** Simulations it took back from stopped workers. */
  requeued: number;
  /** Simulations it stopped because their lease was lost. */
  leasesLost: number;
  /** Up to 20 other lines (a deprecation warning and its hint are left out). */
  other: string[];
}

const READY_TIMEOUT_MS = 60_000;

/** Reads a worker's output line by line as it comes (never left to fill a pipe), counting what it says. */
function watchOutput(child: ChildProcess, onReady: () => void): WorkerLog {
  const log: WorkerLog = { requeued: 0, leasesLost: 0, other: [] };
  const line = (text: string) => {
    const requeued = /(\d+) simulation\(s\) of a server that stopped will run again/.exec(text);
    if (text.includes('running up to')) onReady();
    else if (requeued) log.requeued += Number(requeued[1]);
    else if (text.includes('its lease was lost')) log.leasesLost++;
    else if (text.trim() && !/DeprecationWarning|--trace-deprecation/.test(text))
      if (log.other.length < 20) log.other.push(text);
  };
  for (const stream of [child.stdout!, child.stderr!])
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', line);
  return log;
}

/** Starts `callbench worker` on the plan's database, with a data dir of its own. */
export function startWorker(plan: WorkerPlan): WorkerProcess {
  const child = spawn(
    process.execPath,
    [
      'src/cli/callbench.mjs',
      'worker',
      '--database',
      plan.databaseUrl,
      '--concurrency',
      String(plan.concurrency),
      '--data-dir',
      mkdtempSync(join(plan.root, 'worker-')),
    ],
    {
      env: {
        ...process.env,
        CALLBENCH_SECRET_KEY: TEAM_KEY,
        ...ALLOW_LOOPBACK_ENV,
        CALLBENCH_LLM_BASE_URL: plan.brainUrl,
        CALLBENCH_LLM_API_KEY: 'x',
        CALLBENCH_LLM_MODEL: 'm',
        ...(plan.leaseSeconds ? { CALLBENCH_LEASE_SECONDS: String(plan.leaseSeconds) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let exited = false;
  let log: WorkerLog | null = null;
  const began = performance.now();
  let bootMs: number | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('a worker did not start in 60 s')),
      READY_TIMEOUT_MS,
    );
    log = watchOutput(child, () => {
      bootMs = performance.now() - began;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      reject(
        new Error(
          `a worker exited (${signal ?? code}) before it was ready: ${log?.other.join('\n')}`,
        ),
      );
    });
  });
  ready.catch(() => {}); // a worker killed while starting is no failure of the bench
  return { child, pid: child.pid!, ready, log: log!, bootMs: () => bootMs, exited: () => exited };
}

/** Asks a worker to stop (SIGTERM, as a service manager would); kills it after 10 s. */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.exited()) return;
  const gone = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
  worker.child.kill('SIGTERM');
  const timer = setTimeout(() => worker.child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** CPU seconds (user + system) a process has used, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ ticks
  } catch {
    return 0;
  }
}

/** The machine's busy and total CPU seconds so far (every core), from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = ticks.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = n[3]! + n[4]!; // idle, iowait
  return { busy: (total - idle) / 100, total: total / 100 };
}

/** The processes of the PostgreSQL server listening on `port`: its postmaster and every child. */
export function postgresPids(port: number): number[] {
  const stats = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return { pid: Number(pid), ppid, cmd };
      } catch {
        return null;
      }
    })
    .filter((p) => p !== null);
  const master = stats.find((p) => p.cmd.includes('postgres') && p.cmd.includes(`-p\0${port}`));
  if (!master) return [];
  return [master.pid, ...stats.filter((p) => p.ppid === master.pid).map((p) => p.pid)];
}

/**
 * Records, in a bench-only table, every time a simulation goes from running to an ended status:
 * a simulation recorded twice has two rows there.
 */
export async function installEndingsAudit(client: pg.Client): Promise<void> {
  await client.query(`
    CREATE TABLE bench_endings (simulation_id TEXT NOT NULL, status TEXT NOT NULL,
      at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
    CREATE FUNCTION bench_record_ending() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.status = 'running' AND NEW.status IN ('completed', 'failed', 'cancelled') THEN
        INSERT INTO bench_endings (simulation_id, status) VALUES (NEW.id, NEW.status);
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER bench_record_ending AFTER UPDATE OF status ON simulations
      FOR EACH ROW EXECUTE FUNCTION bench_record_ending();`);
}

/** How the simulations of some executions stand: still open, and the last end (epoch ms). */
export async function progressOf(
  client: pg.Client,
  executions: string[],
): Promise<{ open: number; ended: number; lastEndMs: number | null }> {
  const { rows } = await client.query<{ open: number; ended: number; last: string | null }>(
    `SELECT COUNT(*) FILTER (WHERE status IN ('queued', 'running'))::int AS open,
       COUNT(*) FILTER (WHERE status NOT IN ('queued', 'running'))::int AS ended,
       MAX(ended_at) AS last
     FROM simulations WHERE execution_id = ANY($1)`,
    [executions],
  );
  const row = rows[0]!;
  return { open: row.open, ended: row.ended, lastEndMs: row.last ? Date.parse(row.last) : null };
}

/**
 * After a run: `lost` did not complete (still queued or running, or failed or cancelled), `twice`
 * went from running to ended more than once, `unrecorded` completed without ever being seen to
 * end (which would mean the audit missed it).
 */
export async function auditOf(
  client: pg.Client,
  executions: string[],
): Promise<{ total: number; lost: number; twice: number; unrecorded: number; retried: number }> {
  const { rows } = await client.query<{
    total: number;
    lost: number;
    twice: number;
    unrecorded: number;
    retried: number;
  }>(
    `SELECT COUNT(*)::int AS total,
       COUNT(*) FILTER (WHERE s.status <> 'completed')::int AS lost,
       COUNT(*) FILTER (WHERE e.n > 1)::int AS twice,
       COUNT(*) FILTER (WHERE s.status = 'completed' AND COALESCE(e.n, 0) = 0)::int AS unrecorded,
       COUNT(*) FILTER (WHERE s.attempts > 1)::int AS retried
     FROM simulations s
     LEFT JOIN (SELECT simulation_id, COUNT(*) AS n FROM bench_endings GROUP BY simulation_id) e
       ON e.simulation_id = s.id
     WHERE s.execution_id = ANY($1)`,
    [executions],
  );
  return rows[0]!;
}

/**
 * How long the simulations of some executions ran, each from its claim to its end (`duration_ms`),
 * in seconds: their mean, and their sum (the pool's busy time).
 */
export async function durationsOf(
  client: pg.Client,
  executions: string[],
): Promise<{ mean: number; sum: number }> {
  const { rows } = await client.query<{ mean: number; sum: number }>(
    `SELECT AVG(duration_ms)::float8 / 1000 AS mean, SUM(duration_ms)::float8 / 1000 AS sum
     FROM simulations WHERE execution_id = ANY($1) AND status = 'completed'`,
    [executions],
  );
  return rows[0]!;
}
