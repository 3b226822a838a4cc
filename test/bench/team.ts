import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createEngine } from '../../src/engine.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import {
  ALLOW_LOOPBACK,
  executeRuns,
  seedTeamScenario,
  TEAM_KEY,
  type TeamScenario,
} from '../helpers/team.js';
import { median, round, type Figure } from './harness.js';
import {
  auditOf,
  cpuSeconds,
  durationsOf,
  installEndingsAudit,
  machineCpu,
  postgresPids,
  progressOf,
  startWorker,
  stopWorker,
  type WorkerPlan,
  type WorkerProcess,
} from './team-cluster.js';

/**
 * The team server: simulations queued through an API instance (this process) and run by
 * `callbench worker` processes sharing one PostgreSQL database. BENCH_TEAM_SIMULATIONS scales a
 * quick try down (the figures are those of the default, the issue's 2,000);
 * BENCH_TEAM_CONCURRENCY sets each worker's pool.
 */
const SIMULATIONS = Number(process.env.BENCH_TEAM_SIMULATIONS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_TEAM_CONCURRENCY ?? 16);
const TURNS = 6;
const MODEL_DELAY_MS = 200;
/** Untimed simulations per worker before a timed run: its model threads start with its first calls. */
const WARM_UP_PER_WORKER = 20;
const KILL_EVERY_MS = 10_000;
/** The chaos run's lease: a killed worker's simulations are back in the queue within seconds. */
const LEASE_SECONDS = 6;
/** A run with no simulation ending for this long is given up: what is still open is lost. */
const STALL_MS = 90_000;

interface Bench {
  postgres: Postgres;
  brainUrl: string;
  root: string;
  runs: number;
}

/** Where the CPU went during a timed run, as a share of one core each (the machine has two). */
interface CpuShare {
  workers: number[];
  postgres: number;
  bench: number;
  machine: number;
}

interface RunResult {
  seconds: number;
  rate: number;
  audit: Awaited<ReturnType<typeof auditOf>>;
  /** Seconds the API instance took to start the executions. */
  enqueue: number;
  /** A simulation's mean run time (claim to end), in s. */
  meanDuration: number;
  /** The share of the timed run the workers' slots spent running simulations. */
  occupancy: number;
  kills: number;
  requeued: number;
  leasesLost: number;
  /** Median start-up time of the workers started during the timed run (replacements), in s. */
  replacementBoot: number | null;
  cpu: CpuShare;
  /** Worker log lines the bench does not count (errors, if any). */
  other: string[];
}

/** Resolves when no simulation of these executions is queued or running (or none ended for STALL_MS). */
async function untilEnded(client: pg.Client, executions: string[]) {
  let ended = -1;
  let lastChange = Date.now();
  for (;;) {
    const now = await progressOf(client, executions);
    if (now.open === 0 || Date.now() - lastChange > STALL_MS) return now;
    if (now.ended !== ended) [ended, lastChange] = [now.ended, Date.now()];
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** CPU counters at one moment, to be subtracted from those at another. */
function cpuSnapshot(workers: WorkerProcess[], postgres: number[]) {
  const { user, system } = process.cpuUsage();
  return {
    at: performance.now(),
    workers: workers.map((w) => cpuSeconds(w.pid)),
    postgres: postgres.reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    bench: (user + system) / 1e6,
    machine: machineCpu(),
  };
}

function cpuShare(a: ReturnType<typeof cpuSnapshot>, b: typeof a): CpuShare {
  const wall = (b.at - a.at) / 1000;
  return {
    workers: b.workers.map((s, i) => (s - a.workers[i]!) / wall),
    postgres: (b.postgres - a.postgres) / wall,
    bench: (b.bench - a.bench) / wall,
    // Busy share of all cores, in cores.
    machine: ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * 2,
  };
}

/** Kills one of the pool's workers at random every KILL_EVERY_MS, and starts its replacement at once. */
function killEvery(pool: WorkerProcess[], plan: WorkerPlan, started: WorkerProcess[]) {
  let kills = 0;
  const timer = setInterval(() => {
    const i = Math.floor(Math.random() * pool.length);
    pool[i]!.child.kill('SIGKILL');
    kills++;
    pool[i] = startWorker(plan);
    started.push(pool[i]);
  }, KILL_EVERY_MS);
  return {
    stop: () => clearInterval(timer),
    kills: () => kills,
  };
}

/**
 * The timed part of a run: SIMULATIONS queued through the API instance, run by the pool (one of
 * which is killed every KILL_EVERY_MS when `chaos`), timed from the first execute to the last end.
 */
async function timed(
  api: ReturnType<typeof createEngine>,
  team: TeamScenario,
  client: pg.Client,
  cluster: { pool: WorkerProcess[]; plan: WorkerPlan; started: WorkerProcess[]; chaos: boolean },
  pgPort: number,
) {
  const pgPids = postgresPids(pgPort);
  const before = cpuSnapshot(cluster.pool, pgPids);
  const startedAt = Date.now();
  const killer = cluster.chaos ? killEvery(cluster.pool, cluster.plan, cluster.started) : null;
  try {
    const executions = await executeRuns(api, team, SIMULATIONS);
    const enqueue = (Date.now() - startedAt) / 1000;
    const end = await untilEnded(client, executions);
    const after = cpuSnapshot(cluster.pool, pgPids);
    const seconds = ((end.lastEndMs ?? Date.now()) - startedAt) / 1000;
    const kills = killer?.kills() ?? 0;
    return { executions, seconds, enqueue, kills, cpu: cpuShare(before, after) };
  } finally {
    killer?.stop();
  }
}

/** One measured run on a fresh database: `workers` worker processes, warmed up, then timed. */
async function measuredRun(bench: Bench, workers: number, chaos: boolean): Promise<RunResult> {
  const url = await ensureDatabase(bench.postgres.url, `bench_team_${++bench.runs}`);
  const api = createEngine({
    dataDir: mkdtempSync(join(bench.root, 'api-')),
    databaseUrl: url,
    secretKey: TEAM_KEY,
    outboundAllow: ALLOW_LOOPBACK,
    runSimulations: false,
    llmDefault: { kind: 'openai', baseUrl: bench.brainUrl, apiKey: 'x', model: 'm' },
    log: { info: () => {}, error: (m) => console.error(`[api] ${m}`) },
  });
  const client = new pg.Client({ connectionString: url });
  const plan: WorkerPlan = {
    databaseUrl: url,
    brainUrl: bench.brainUrl,
    concurrency: CONCURRENCY,
    root: bench.root,
    leaseSeconds: chaos ? LEASE_SECONDS : undefined,
  };
  const started: WorkerProcess[] = [];
  try {
    await api.start();
    const team = await seedTeamScenario(api, TURNS);
    await client.connect();
    await installEndingsAudit(client);
    const pool = Array.from({ length: workers }, () => startWorker(plan));
    started.push(...pool);
    await Promise.all(pool.map((w) => w.ready));
    await untilEnded(client, await executeRuns(api, team, WARM_UP_PER_WORKER * workers));
    const run = await timed(api, team, client, { pool, plan, started, chaos }, bench.postgres.port);
    const durations = await durationsOf(client, run.executions);
    return {
      enqueue: run.enqueue,
      meanDuration: durations.mean,
      occupancy: durations.sum / (workers * CONCURRENCY * run.seconds),
      seconds: run.seconds,
      rate: SIMULATIONS / run.seconds,
      audit: await auditOf(client, run.executions),
      kills: run.kills,
      requeued: started.reduce((sum, w) => sum + w.log.requeued, 0),
      leasesLost: started.reduce((sum, w) => sum + w.log.leasesLost, 0),
      replacementBoot: bootOf(started.slice(workers)),
      cpu: run.cpu,
      other: started.flatMap((w) => w.log.other),
    };
  } finally {
    await Promise.allSettled(started.map(stopWorker));
    await client.end().catch(() => {});
    await api.stop();
  }
}

const ours = (c: CpuShare) => c.workers.reduce((a, b) => a + b, 0) + c.postgres + c.bench;
function bootOf(workers: WorkerProcess[]): number | null {
  const booted = workers.map((w) => w.bootMs()).filter((ms) => ms !== null);
  return booted.length ? median(booted) / 1000 : null;
}

const pct = (cores: number) => `${Math.round(cores * 100)}%`;
const cpuText = (c: CpuShare) =>
  `CPU (share of one core): worker${c.workers.length > 1 ? 's' : ''} ${c.workers.map(pct).join(' + ')}, PostgreSQL ${pct(c.postgres)}, bench process (API instance and fake model) ${pct(c.bench)}, other processes ${pct(c.machine - ours(c))}; whole machine ${pct(c.machine)} of 200%`;
const timeText = (r: RunResult) =>
  `${round(r.rate, 1)} simulations/s (${round(r.seconds, 1)} s, ${round(r.enqueue, 1)} s of them starting the executions; a simulation ran ${round(r.meanDuration, 2)} s on average, the slots were busy ${pct(r.occupancy)} of the time)`;
const auditText = (r: RunResult) =>
  `${r.audit.lost} lost, ${r.audit.twice} recorded twice${r.audit.unrecorded ? `, ${r.audit.unrecorded} completed unseen by the audit` : ''}${r.kills === 0 && r.leasesLost ? `, ${r.leasesLost} leases lost` : ''}`;
const clean = (r: RunResult) =>
  r.audit.total === SIMULATIONS &&
  r.audit.lost === 0 &&
  r.audit.twice === 0 &&
  r.audit.unrecorded === 0;

function figures(one: RunResult, three: RunResult, chaos: RunResult): Figure[] {
  const ratio = three.rate / one.rate;
  const n = SIMULATIONS.toLocaleString('en-US');
  return [
    {
      name: `${n} simulations x ${TURNS} turns (replica agent on a fake model answering after ${MODEL_DELAY_MS} ms, PostgreSQL): throughput of 3 worker processes vs 1, each running up to ${CONCURRENCY} at once`,
      value: round(ratio),
      goal: '>= 2.5',
      met: ratio >= 2.5 && clean(one) && clean(three),
      detail: `3 workers: ${timeText(three)}; ${auditText(three)}; ${cpuText(three.cpu)}. 1 worker: ${timeText(one)}; ${auditText(one)}; ${cpuText(one.cpu)}. Both timed from the first execute to the last end, after ${WARM_UP_PER_WORKER} untimed simulations per worker`,
    },
    {
      name: `the same ${n} simulations on 3 workers, one killed (SIGKILL) every ${KILL_EVERY_MS / 1000} s and restarted at once: simulations lost + recorded twice`,
      value: chaos.audit.lost + chaos.audit.twice,
      goal: '0 (0 lost, 0 recorded twice)',
      met: clean(chaos) && chaos.kills > 0,
      detail: `${auditText(chaos)}; ${chaos.kills} kills, ${chaos.requeued} simulations taken back after their lease (${LEASE_SECONDS} s) lapsed, ${chaos.audit.retried} run more than once, ${chaos.leasesLost} stopped by a worker that found its lease lost; replacements ready in ${chaos.replacementBoot === null ? '-' : round(chaos.replacementBoot, 1)} s (median); ${round(chaos.rate, 1)} simulations/s (${round(chaos.seconds, 1)} s) against ${round(three.rate, 1)}/s undisturbed`,
    },
  ];
}

export async function teamBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'cb-team-'));
  const postgres = await startPostgres();
  const brain = await startFakeBrain({ delayMs: MODEL_DELAY_MS });
  const bench: Bench = { postgres, brainUrl: brain.url, root, runs: 0 };
  try {
    const one = await measuredRun(bench, 1, false);
    const three = await measuredRun(bench, 3, false);
    const chaos = await measuredRun(bench, 3, true);
    for (const line of [one, three, chaos].flatMap((r) => r.other))
      console.error(`[worker] ${line}`);
    return figures(one, three, chaos);
  } finally {
    await brain.stop();
    postgres.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
