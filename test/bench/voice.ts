import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { startPacer } from '../../src/audio/pacer.js';
import { createSpeech } from '../../src/speech/index.js';
import type { FakeBrainRecord } from '../helpers/fake-voice.js';
import { median, round, type Figure } from './harness.js';
import { cpuSeconds, machineCpu } from './team-cluster.js';
import { impairmentCost } from './voice-impairment.js';
import type { MeasuredCall, VoiceRunPlan, VoiceRunResult } from './voice-run.js';

/**
 * Audio simulations: 20 concurrent calls to a fake Twilio Media Streams agent, and 5 for the
 * memory comparison. Each run is a fresh engine process (voice-run.ts) and a fresh process of
 * fakes (test/helpers/voice-fakes-process.ts), so the engine's pacing and memory are its own.
 * Calls last max(15, 20 x BENCH_SECONDS) s: 60 s by default.
 */
const tsx = ['--import', 'tsx'];
const CONCURRENT = 20;
const FEWER = 5;
/** Where the fake agent hears a caller over car noise at 30 dB (its default hears the noise). */
const HEARING_DBFS = -35;
/** Clean/impaired run pairs behind the impairment CPU ratio. */
const IMPAIRMENT_PAIRS = 4;
/** Audio thread/engine thread run pairs behind the audio threads' CPU ratio. */
const THREAD_COST_PAIRS = 3;
/** An agent reply measured this close to one the fake made (on their two clocks) is that reply. */
const MATCH_MS = 300;

interface FakeUrls {
  delayMs: number;
  mediaStreamUrl: string;
  agentUrl: string;
  sttUrl: string;
  truthUrl: string;
}

/** A script in a child process with JSON lines on stdout (stderr shown); killed at timeoutMs. */
function childLines(args: string[], timeoutMs: number) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  void exited.then(() => clearTimeout(timer));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const script = args.find((a) => a.endsWith('.ts'));
  return {
    child,
    exited,
    /** The next JSON line (anything else it prints is passed over). */
    async next<T>(): Promise<T> {
      for (;;) {
        const { value, done } = await lines.next();
        if (done) throw new Error(`${script} gave no answer (exit ${await exited})`);
        if (value.startsWith('{')) return JSON.parse(value) as T;
      }
    },
  };
}

/**
 * What the rest of the machine did while the calls ran: a bare 20 ms pacer (the engine's own,
 * src/audio/pacer.ts, handing over nothing) in this idle process, the fakes' CPU and the
 * machine's. The pacer's lateness is the floor the machine's scheduling sets for any process.
 */
function observeMachine(fakesPid: number) {
  const control = startPacer({ frameMs: 20, onFrame: () => undefined });
  const began = { at: performance.now(), machine: machineCpu(), fakes: cpuSeconds(fakesPid) };
  return () => {
    control.stop();
    const wall = (performance.now() - began.at) / 1000;
    const machine = machineCpu();
    const busy = (machine.busy - began.machine.busy) / (machine.total - began.machine.total);
    return {
      control: control.stats(),
      machineCores: busy * availableParallelism(),
      fakesCores: (cpuSeconds(fakesPid) - began.fakes) / wall,
    };
  };
}

/**
 * One run: the fakes started, the engine's calls placed, and the fakes' truth read back.
 * `impaired`: realistic callers (noise and a mobile line); `hearingDbfs`: the level the fake agent
 * hears the caller at (over noise it needs one).
 */
async function voiceRun(
  calls: number,
  callSeconds: number,
  how: { impaired?: boolean; hearingDbfs?: number; audioThreads?: number; load?: boolean } = {},
) {
  const impaired = how.impaired ?? false;
  const fakeOptions = JSON.stringify(
    how.hearingDbfs === undefined ? {} : { hearingDbfs: how.hearingDbfs },
  );
  const fakes = childLines(
    [...tsx, 'test/helpers/voice-fakes-process.ts', fakeOptions],
    callSeconds * 1000 + 300_000,
  );
  let runner: ReturnType<typeof childLines> | null = null;
  try {
    const urls = await fakes.next<FakeUrls>();
    const plan: VoiceRunPlan = {
      ...urls,
      calls,
      callSeconds,
      impaired,
      audioThreads: how.audioThreads,
      load: how.load,
    };
    runner = childLines(
      ['--expose-gc', ...tsx, 'test/bench/voice-run.ts', JSON.stringify(plan)],
      callSeconds * 1000 + 240_000,
    );
    await runner.next<{ timed: true }>();
    const observed = observeMachine(fakes.child.pid!);
    const result = await runner.next<VoiceRunResult>();
    const machine = observed();
    await runner.exited;
    const truth = (await (await fetch(urls.truthUrl)).json()) as FakeBrainRecord[];
    return { result, truth, machine, delayMs: urls.delayMs };
  } finally {
    // A runner that failed half-way is not left placing calls.
    runner?.child.kill('SIGKILL');
    fakes.child.kill('SIGTERM');
    await fakes.exited;
  }
}

/** Nearest-rank percentile, `p` in percent. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

interface LatencyCheck {
  /** Measured minus true latency, ms, signed. */
  errors: number[];
  /** Replies measured with no reply of the fake's at that moment. */
  unmatched: number;
  /** Replies the fake made to a caller line that the engine did not measure (last second aside). */
  missed: number;
}

/**
 * Each measured reply against the fake's truth (`agentStartMs - callerEndMs`), the call found by
 * its Twilio callSid and the reply by its start: ms from connect on each side's own clock.
 */
function checkLatencies(
  calls: MeasuredCall[],
  truth: FakeBrainRecord[],
  callMs: number,
): LatencyCheck {
  const out: LatencyCheck = { errors: [], unmatched: 0, missed: 0 };
  const bySid = new Map(truth.map((b) => [String(b.init?.start?.callSid), b]));
  for (const c of calls) {
    const brain = c.callId ? bySid.get(c.callId) : undefined;
    const known = (brain?.turns ?? [])
      .filter((t) => t.callerEndMs !== null && typeof t.agentStartMs === 'number')
      .map((t) => ({
        atMs: t.agentStartMs - brain!.connectedAtMs,
        latencyMs: t.agentStartMs - t.callerEndMs!,
        used: false,
      }));
    for (const turn of c.agentTurns) {
      const near = known.find((k) => Math.abs(k.atMs - turn.atMs) <= MATCH_MS);
      if (!near) out.unmatched++;
      else {
        near.used = true;
        out.errors.push(turn.latencyMs - near.latencyMs);
      }
    }
    // A reply starting as the call is cut is not heard long enough to count (250 ms of speech).
    out.missed += known.filter((k) => !k.used && k.atMs < callMs - 1_000).length;
  }
  return out;
}

const TTS_SENTENCES = [
  'Hello, I am calling about the order I placed last Tuesday.',
  'Could you tell me when the package will arrive?',
  'My account number is four five two one nine.',
  'I would like to change the delivery address, please.',
  'The tracking page has not updated in three days.',
  'Is it possible to get a refund instead of a replacement?',
  'I was charged twice for the same item this month.',
  'Can you send the receipt to my work email?',
  'The box arrived damaged and one of the cups was broken.',
  'What are your opening hours on the weekend?',
  'I need to cancel my subscription before it renews.',
  'Sorry, could you repeat that more slowly?',
  'My name is Dana Whitfield, spelled with two Ls in Whitfield.',
  'Yes, that is the right address on Maple Street.',
  'How long does express shipping usually take?',
  'I tried the reset link but it expired already.',
  'Please note that I will be away until the twentieth.',
  'Is there someone else I can talk to about this?',
  'Thanks, that answers everything I wanted to know.',
  'Alright, I think we are done here, goodbye.',
];

/**
 * Offline TTS real-time factor on one core: the system voice (espeak-ng in a child process, one at
 * a time) speaking 20 distinct sentences, so the cache never answers; wall time of each
 * synthesis over the seconds of speech it made (silence trimmed).
 */
async function ttsRealTimeFactor() {
  const speech = createSpeech({
    connections: () => Promise.resolve({ openai: null, elevenlabs: null, stt: null }),
    maxProcesses: 1,
  });
  const voice = { engine: 'system', voiceId: null, speed: null } as const;
  try {
    await speech.synthesize(
      'A first line, untimed, so the voice data is in the page cache.',
      voice,
    );
    let synthMs = 0;
    let speechMs = 0;
    const each: number[] = [];
    for (const text of TTS_SENTENCES) {
      const began = performance.now();
      const out = await speech.synthesize(text, voice);
      const took = performance.now() - began;
      if (out.cached) throw new Error(`"${text}" came from the cache`);
      const ms = (out.pcm.length / out.sampleRate) * 1000;
      synthMs += took;
      speechMs += ms;
      each.push(took / ms);
    }
    return { rtf: synthMs / speechMs, synthMs, speechMs, worst: Math.max(...each) };
  } finally {
    await speech.close();
  }
}

type Run = Awaited<ReturnType<typeof voiceRun>>;

const endReasons = (calls: MeasuredCall[]) => {
  const counts = new Map<string, number>();
  for (const c of calls) {
    const key = c.status === 'completed' ? (c.endReason ?? '?') : `${c.status}: ${c.error}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
};

function pacingFigure({ result, machine }: Run, goalMs = 5): Figure {
  const { calls } = result;
  const p99s = calls.map((c) => c.pacing?.late_p99_ms ?? Number.NaN);
  const worst = Math.max(...p99s);
  const completed = calls.filter((c) => c.status === 'completed').length;
  const frames = median(calls.map((c) => c.pacing?.frames ?? 0));
  const worstFrame = Math.max(...calls.map((c) => c.pacing?.late_max_ms ?? Number.NaN));
  const { control } = machine;
  return {
    name: `frame pacing lateness p99 of ${CONCURRENT} concurrent audio calls (worst call)`,
    value: worst,
    goal: `< ${goalMs} ms`,
    met: worst < goalMs && completed === CONCURRENT,
    detail:
      `each call's own p99 of (frame handed over - frame due), ${frames} frames a call (median); ` +
      `median call ${median(p99s)} ms, latest frame ${worstFrame} ms; ${completed}/${calls.length} ` +
      `completed (${endReasons(calls)}); engine event loop delay p99 ${result.loopDelay.p99} ms; ` +
      `CPU in cores: engine ${round(result.cpuCores)}, fakes ${round(machine.fakesCores)}, machine ` +
      `${round(machine.machineCores)} of ${availableParallelism()}; meanwhile a bare pacer in an idle ` +
      `process: p99 ${round(control.lateP99Ms, 1)} ms, max ${round(control.lateMaxMs, 1)} ms` +
      (result.load
        ? `; the engine answered a persona list ${round(result.load.rps)} times a second (4 connections) throughout`
        : ''),
  };
}

function latencyFigure(runs: Run[], callMs: number, what: string): Figure {
  const checks = runs.map((r) => checkLatencies(r.result.calls, r.truth, callMs));
  const check: LatencyCheck = {
    errors: checks.flatMap((c) => c.errors),
    unmatched: checks.reduce((n, c) => n + c.unmatched, 0),
    missed: checks.reduce((n, c) => n + c.missed, 0),
  };
  const { delayMs } = runs[0]!;
  const abs = check.errors.map(Math.abs);
  const p99 = percentile(abs, 99);
  const mean = check.errors.reduce((a, b) => a + b, 0) / check.errors.length;
  return {
    name: `response-latency measurement error p99, ${what}`,
    value: round(p99, 1),
    goal: '< 40 ms',
    met: p99 < 40 && check.unmatched === 0 && check.missed === 0,
    detail:
      `|measured latency_ms - (fake agentStartMs - callerEndMs)| over ${abs.length} replies ` +
      `(the fake answers ${delayMs} ms after the caller's last sound); p50 ${round(percentile(abs, 50), 1)} ms, ` +
      `max ${round(Math.max(...abs), 1)} ms, mean signed error ${round(mean, 1)} ms; ` +
      `${check.unmatched} measured replies matched no fake reply, ${check.missed} fake replies not measured`,
  };
}

/**
 * Heap + external (the audio buffers are ArrayBuffers, counted in external) of the engine's thread
 * and its audio threads: what the engine holds.
 * RSS is shown beside it but not judged: it carries ~150 MB of code and native libraries that no
 * call adds to, and it never shrinks within a run.
 */
function memoryFigure(many: Run, few: Run): Figure {
  const [a, b] = [many.result.memory, few.result.memory];
  const ratio = a.peakLive / b.peakLive;
  const perCall = (m: typeof a, n: number) => round((m.peakLive - m.baseLive) / n, 2);
  return {
    name: `peak heap+external of the engine (its thread and audio threads), ${CONCURRENT} concurrent audio calls vs ${FEWER}`,
    value: round(ratio),
    goal: '<= 4',
    met: ratio <= 4,
    detail:
      `${round(a.peakLive, 1)} MB against ${round(b.peakLive, 1)} MB, sampled every 200 ms in fresh ` +
      `engine processes with no GC forced while calls run (a full GC would stall their frames), so ` +
      `garbage counts too; above the baseline after a warm-up call${a.gc ? ' and a full GC' : ''} ` +
      `(${round(a.baseLive, 1)} / ${round(b.baseLive, 1)} MB): ${perCall(a, CONCURRENT)} MB a call ` +
      `against ${perCall(b, FEWER)}; peak RSS ${round(a.peakRss, 1)} / ${round(b.peakRss, 1)} MB ` +
      `(ratio ${round(a.peakRss / b.peakRss)})`,
  };
}

/**
 * Noise mixing and the mobile line's sound, loss and jitter: the engine's CPU over the same 20
 * calls without them, the fake agent hearing the same way in both (each run in fresh processes,
 * the baseline measured in the same bench run), and the pacing of the impaired calls. The CPU is
 * taken while the calls stream (dialling, voicing, recording and scoring are the same work either
 * way, and their bursts are most of a run's variance); a clean and an impaired run go side by
 * side in each pair, and the ratio is of their summed CPU, since one run's CPU wanders by 10-20%
 * on this machine. The impaired runs' pacing is taken with the clean run beside them: 40 calls.
 */
function impairmentFigures(
  pairs: { clean: Run; impaired: Run }[],
  alone: { clean: number; impaired: number },
): Figure[] {
  const sum = (runs: Run[], cores: (r: Run) => number) => runs.reduce((t, r) => t + cores(r), 0);
  const streaming = (run: Run) => run.result.streamingCpuCores;
  const whole = (run: Run) => run.result.cpuCores;
  const [cleanRuns, runs] = [pairs.map((p) => p.clean), pairs.map((p) => p.impaired)];
  const clean = sum(cleanRuns, streaming);
  const ratio = sum(runs, streaming) / clean;
  const wholeRatio = sum(runs, whole) / sum(cleanRuns, whole);
  const perPair = pairs.map((p) => round(streaming(p.impaired) / streaming(p.clean))).join(', ');
  const added = alone.impaired - alone.clean;
  const cleanMean = clean / pairs.length;
  const lost = runs.flatMap((r) => r.result.calls).reduce((n, c) => n + (c.framesLost ?? 0), 0);
  const paced = runs.map((run) => pacingFigure(run, 10));
  const worstPacing = paced.reduce((a, b) => (b.value > a.value ? b : a));
  return [
    {
      name: `engine CPU of ${CONCURRENT} streaming calls with car noise on a mobile line, over the same calls clean`,
      value: round(ratio),
      goal: '<= 1.1',
      met: ratio <= 1.1,
      detail:
        `${pairs.length} pairs of runs, clean and impaired side by side: ${round(sum(runs, streaming) / pairs.length, 3)} ` +
        `cores against ${round(cleanMean, 3)} (mean) while the calls stream; each pair's ratio ` +
        `${perPair}; over the whole runs (dialling to scoring) ${round(wholeRatio)}; the mixing and ` +
        `the line alone (the calls' frame loops, in this process, clean and impaired in turns) add ` +
        `${round(added, 4)} cores, ${round((100 * added) / cleanMean, 1)}% of the clean calls' ` +
        `streaming engine; ${lost} caller frames lost on the lines; impaired calls ended: ` +
        endReasons(runs.flatMap((r) => r.result.calls)),
    },
    {
      ...worstPacing,
      name: `${worstPacing.name}, with noise and a mobile line, beside as many clean calls (worst of ${runs.length} runs)`,
      met: paced.every((f) => f.met),
    },
  ];
}

/**
 * What the audio threads cost: the engine's CPU while 20 calls stream with their frames on an
 * audio thread, over the same calls with the frames on the engine's thread (`audioThreads: 0`, as
 * before the threads), the two runs of each pair side by side; and the pacing each way.
 */
function threadCostFigure(pairs: { threads: Run; here: Run }[]): Figure {
  const sum = (runs: Run[]) => runs.reduce((t, r) => t + r.result.streamingCpuCores, 0);
  const [threaded, here] = [pairs.map((p) => p.threads), pairs.map((p) => p.here)];
  const ratio = sum(threaded) / sum(here);
  const worstP99 = (runs: Run[]) =>
    Math.max(...runs.flatMap((r) => r.result.calls.map((c) => c.pacing?.late_p99_ms ?? NaN)));
  const perPair = pairs
    .map((p) => round(p.threads.result.streamingCpuCores / p.here.result.streamingCpuCores))
    .join(', ');
  return {
    name: `engine CPU of ${CONCURRENT} streaming calls, frames on an audio thread, over the same calls with the frames on the engine's thread`,
    value: round(ratio),
    goal: '<= 1.15',
    met: ratio <= 1.15,
    detail:
      `${pairs.length} pairs of runs side by side: ${round(sum(threaded) / pairs.length, 3)} cores ` +
      `against ${round(sum(here) / pairs.length, 3)} (mean) while the calls stream (the process's ` +
      `CPU, every thread); each pair's ratio ${perPair}; worst call's pacing p99 in these runs ` +
      `${worstP99(threaded)} ms on the audio thread, ${worstP99(here)} ms on the engine's thread`,
  };
}

/** Runs with the frames on an audio thread and on the engine's thread, side by side, `count` pairs. */
async function threadCostPairs(count: number, callSeconds: number) {
  const pairs: { threads: Run; here: Run }[] = [];
  for (let i = 0; i < count; i++) {
    const [threads, here] = await Promise.all([
      voiceRun(CONCURRENT, callSeconds),
      voiceRun(CONCURRENT, callSeconds, { audioThreads: 0 }),
    ]);
    pairs.push({ threads, here });
  }
  return pairs;
}

/**
 * Clean and impaired runs of the same calls, `count` pairs. The two runs of a pair go side by side
 * (each its own engine and fakes), so that whatever else the machine does meanwhile weighs on both
 * alike: run one after the other, a pair's ratio wandered by 15% either way on this machine.
 */
async function impairmentPairs(count: number, callSeconds: number) {
  const pairs: { clean: Run; impaired: Run }[] = [];
  for (let i = 0; i < count; i++) {
    const [clean, impaired] = await Promise.all([
      voiceRun(CONCURRENT, callSeconds, { hearingDbfs: HEARING_DBFS }),
      voiceRun(CONCURRENT, callSeconds, { impaired: true, hearingDbfs: HEARING_DBFS }),
    ]);
    pairs.push({ clean, impaired });
  }
  return pairs;
}

/** `npm run bench voice`. */
export async function voiceBench(seconds: number): Promise<Figure[]> {
  const callSeconds = Math.max(15, Math.round(20 * seconds));
  const tts = await ttsRealTimeFactor();
  // The engine answers a persona list over HTTP throughout: its thread is busy, its calls' frames not.
  const many = await voiceRun(CONCURRENT, callSeconds, { load: true });
  const costs = await threadCostPairs(THREAD_COST_PAIRS, callSeconds);
  const pairs = await impairmentPairs(IMPAIRMENT_PAIRS, callSeconds);
  const few = await voiceRun(FEWER, callSeconds, { load: true });
  const alone = await impairmentCost(3, 10);
  const callMs = callSeconds * 1000;
  return [
    pacingFigure(many),
    ...impairmentFigures(pairs, alone),
    latencyFigure([many], callMs, `${CONCURRENT} concurrent audio calls, the engine under load`),
    latencyFigure(
      pairs.map((p) => p.impaired),
      callMs,
      `${CONCURRENT} impaired calls beside ${CONCURRENT} clean (${pairs.length} runs)`,
    ),
    threadCostFigure(costs),
    {
      name: 'offline TTS real-time factor, one core (system voice, espeak-ng)',
      value: round(tts.rtf, 3),
      goal: '< 0.2',
      met: tts.rtf < 0.2,
      detail:
        `${round(tts.synthMs / 1000)} s of synthesis for ${round(tts.speechMs / 1000)} s of speech, ` +
        `${TTS_SENTENCES.length} distinct sentences one at a time (maxProcesses 1, no cache hits); ` +
        `worst sentence ${round(tts.worst, 3)}`,
    },
    memoryFigure(many, few),
  ];
}
