import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngine, type Engine } from '../../src/engine.js';
import { throughput } from './harness.js';

/**
 * One run of the voice bench, in a process of its own so that its memory is its own: the engine
 * (temp data dir, removed at the end) places CALLS concurrent audio calls of CALL_SECONDS to the
 * fake Twilio agent of test/helpers/voice-fakes-process.ts, one persona x one agent x CALLS runs.
 * Prints what each call measured and the process's memory while they ran, as one JSON line.
 */
export interface VoiceRunPlan {
  mediaStreamUrl: string;
  agentUrl: string;
  sttUrl: string;
  calls: number;
  callSeconds: number;
  /** Realistic callers: a persona over car noise, on a mobile line (loss, jitter, mu-law band). */
  impaired?: boolean;
  /** The engine's audio threads (its default when absent; 0: frames on the engine's thread). */
  audioThreads?: number;
  /** The engine also answers a persona-list load over HTTP (4 connections) while the calls run. */
  load?: boolean;
}

export interface MeasuredCall {
  status: string;
  error: string | null;
  endReason: string | null;
  durationMs: number | null;
  callId: string | null;
  pacing: { frames: number; late_p50_ms: number; late_p99_ms: number; late_max_ms: number } | null;
  /** The agent's replies: when each started (ms from connect) and its measured latency. */
  agentTurns: { atMs: number; latencyMs: number }[];
  /** Caller frames the line lost (realistic callers). */
  framesLost: number | null;
}

export interface VoiceRunResult {
  calls: MeasuredCall[];
  /** From the first execute to the last simulation's end. */
  seconds: number;
  /**
   * MB: `base` after the warm-up call (and a full GC under --expose-gc), peaks while calls ran;
   * live is heap + external of the engine's thread and its audio threads.
   */
  memory: { baseRss: number; peakRss: number; baseLive: number; peakLive: number; gc: boolean };
  /** The persona-list load the engine answered meanwhile (plan.load). */
  load: { rps: number; seconds: number } | null;
  /** The engine's event loop delay while the calls ran: how late a 20 ms timer fired, ms. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Cores the engine process used while the calls ran. */
  cpuCores: number;
  /**
   * Cores while every call only streams: from a quarter into the calls to a tenth before their
   * end, past the dialling and the voicing of each call's lines and before the recordings are
   * written and the calls scored (work that is the same with or without realistic callers).
   */
  streamingCpuCores: number;
}

const CALLER_LINES = [
  'Hello, I am calling about my order.',
  'When will it arrive at my house?',
  'Can you check the refund on my last purchase?',
  'I also moved last month, can you change my address?',
  'Great, and is there a charge for express shipping?',
  'Could you send me the tracking number by email?',
  'One more thing, is my warranty still valid?',
  'Okay, can you read the new address back to me?',
];
/** A scripted exchange takes about six seconds: there are always more lines than the call uses. */
const linesFor = (seconds: number) =>
  Array.from({ length: Math.ceil(seconds / 4) + 2 }, (_, i) => ({
    say: `${CALLER_LINES[i % CALLER_LINES.length]!} Question ${i + 1}.`,
  }));
const SAMPLE_MS = 200;
const LOOP_TIMER_MS = 20;
const MB = 2 ** 20;

async function call<T>(engine: Engine, name: string, input: unknown): Promise<T> {
  const res = await engine.invoke(name, input);
  if (res.status >= 300) throw new Error(`${name}: ${res.status} ${JSON.stringify(res.data)}`);
  return res.data as T;
}

/** Settings, the custom agent on the fake, a persona, the timed scenario and a short warm-up. */
async function seed(engine: Engine, plan: VoiceRunPlan) {
  await call(engine, 'settings.update', {
    simulations: { concurrency: plan.calls },
    speech: { stt: { baseUrl: plan.sttUrl, apiKey: 'fake-speech-key', model: 'whisper-1' } },
  });
  const agent = await call<{ id: string }>(engine, 'agents.connect', {
    provider: 'http',
    agent_id: 'bench-voice-bot',
    credentials: { base_url: plan.agentUrl, websocket_url: plan.mediaStreamUrl },
  });
  const ws = (await call<{ workspaces: { id: string }[] }>(engine, 'workspaces.list', {}))
    .workspaces[0]!.id;
  const persona = (
    await call<{ persona: { id: string } }>(engine, 'personas.create', {
      workspace_id: ws,
      name: 'Bench caller',
      prompt: 'Asks about an order.',
      ...(plan.impaired ? { backgroundNoise: 'car', noise: { snrDb: 30 } } : {}),
    })
  ).persona.id;
  const scenario = async (name: string, maxDurationMs: number) =>
    (
      await call<{ scenario: { id: string } }>(engine, 'scenarios.create', {
        workspace_id: ws,
        name,
        prompt: 'Ask about an order.',
        personas: [persona],
        targetAgents: [agent.id],
        // The same lines: the warm-up voices them, so the timed calls dial together.
        script: linesFor(plan.callSeconds),
        maxDurationMs,
        maxTurns: 200,
        audio: { enabled: true, ...(plan.impaired ? { line: 'mobile' } : {}) },
      })
    ).scenario.id;
  return {
    ws,
    timed: await scenario('Bench voice', plan.callSeconds * 1000),
    warmUp: await scenario('Bench voice warm-up', 8_000),
  };
}

/** Executes `runs` simulations of a scenario; resolves with the execution id once all ended. */
async function execute(engine: Engine, ws: string, scenarioId: string, runs: number) {
  const ended = new Map<string, number>();
  let check = () => {};
  const off = engine.events.subscribe((e) => {
    if (e.type !== 'simulation.finished') return;
    ended.set(e.data.executionId, (ended.get(e.data.executionId) ?? 0) + 1);
    check();
  });
  const started = await call<{ execution: { id: string } }>(engine, 'scenarios.execute', {
    workspace_id: ws,
    scenario_id: scenarioId,
    runs,
  });
  const id = started.execution.id;
  await new Promise<void>((resolve) => {
    check = () => (ended.get(id) ?? 0) >= runs && resolve();
    check();
  });
  off();
  return id;
}

/** Measures the CPU used between a quarter of `callSeconds` from now and a tenth before its end. */
function streamingCpu(callSeconds: number) {
  const fromMs = callSeconds * 250;
  const toMs = callSeconds * 900;
  let from: NodeJS.CpuUsage | null = null;
  let used: NodeJS.CpuUsage | null = null;
  setTimeout(() => (from = process.cpuUsage()), fromMs);
  setTimeout(() => (used = from && process.cpuUsage(from)), toMs);
  return {
    cores: () => (used ? (used.user + used.system) / 1e3 / (toMs - fromMs) : Number.NaN),
  };
}

/**
 * Memory every SAMPLE_MS, with no forced collection (a full GC would stall the calls' frames): the
 * engine's thread's heap and external memory, and its audio threads' (the process's figures leave
 * a worker's heap out).
 */
function sampleMemory(engine: Engine) {
  const live = async () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external + ((await engine.audioThreads()?.memory()) ?? 0);
  };
  const peak = { rss: process.memoryUsage.rss(), live: 0 };
  const sample = async () => {
    peak.rss = Math.max(peak.rss, process.memoryUsage.rss());
    peak.live = Math.max(peak.live, await live());
  };
  const timer = setInterval(() => void sample(), SAMPLE_MS);
  return {
    async stop() {
      clearInterval(timer);
      await sample();
      return { rss: peak.rss / MB, live: peak.live / MB };
    },
    now: async () => ({ rss: process.memoryUsage.rss() / MB, live: (await live()) / MB }),
  };
}

/**
 * The persona-list load (4 connections, for `seconds`) in a process of its own, against the
 * engine's HTTP API: resolves with its requests per second; any failed request fails the run.
 */
async function personaLoad(engine: Engine, apiKey: string, ws: string, seconds: number) {
  const url = await engine.listen(0, '127.0.0.1');
  const rps = await throughput({
    url: `${url}/api/v1/workspaces/${ws}/personas`,
    headers: { authorization: `Bearer ${apiKey}` },
    seconds,
    connections: 4,
  });
  return { rps, seconds };
}

interface PresentedSimulation {
  status: string;
  error: string | null;
  end_reason: string | null;
  duration_ms: number | null;
  turns: { role: string; at_ms: number; latency_ms: number | null }[];
  audio: {
    call_id: string | null;
    pacing: MeasuredCall['pacing'];
    caller?: { line: { frames_lost: number } };
  } | null;
}

function measured(s: PresentedSimulation): MeasuredCall {
  return {
    status: s.status,
    error: s.error,
    endReason: s.end_reason,
    durationMs: s.duration_ms,
    callId: s.audio?.call_id ?? null,
    pacing: s.audio?.pacing ?? null,
    framesLost: s.audio?.caller?.line.frames_lost ?? null,
    agentTurns: s.turns.flatMap((t) =>
      t.role === 'agent' && t.latency_ms !== null
        ? [{ atMs: t.at_ms, latencyMs: t.latency_ms }]
        : [],
    ),
  };
}

async function timedRun(engine: Engine, plan: VoiceRunPlan, apiKey: string) {
  const { ws, timed, warmUp } = await seed(engine, plan);
  await execute(engine, ws, warmUp, 1);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  console.log(JSON.stringify({ timed: true }));
  const memory = sampleMemory(engine);
  const base = await memory.now();
  // For the whole run: the calls take a little longer than their length to dial and end.
  const load = plan.load ? personaLoad(engine, apiKey, ws, plan.callSeconds + 5) : null;
  const loop = monitorEventLoopDelay({ resolution: LOOP_TIMER_MS });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  const streaming = streamingCpu(plan.callSeconds);
  const executionId = await execute(engine, ws, timed, plan.calls);
  const seconds = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  loop.disable();
  const peak = await memory.stop();
  const { simulations } = await call<{ simulations: PresentedSimulation[] }>(
    engine,
    'executions.simulations',
    { workspace_id: ws, execution_id: executionId },
  );
  // The histogram records the timer's whole interval: what passed beyond it is the delay.
  const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - LOOP_TIMER_MS) * 100) / 100);
  return {
    calls: simulations.map(measured),
    seconds,
    memory: {
      baseRss: base.rss,
      peakRss: peak.rss,
      baseLive: base.live,
      peakLive: peak.live,
      gc: !!gc,
    },
    loopDelay: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
    cpuCores: (cpu.user + cpu.system) / 1e6 / seconds,
    streamingCpuCores: streaming.cores(),
    load: load && (await load),
  } satisfies VoiceRunResult;
}

const plan = JSON.parse(process.argv[2]!) as VoiceRunPlan;
const dir = mkdtempSync(join(tmpdir(), 'cb-voice-'));
const engine = createEngine({ dataDir: dir, audioThreads: plan.audioThreads });
try {
  const { firstApiKey } = await engine.start();
  console.log(JSON.stringify(await timedRun(engine, plan, firstApiKey!)));
  await engine.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
