import type { AudioSummary } from '../../src/domain/audio.js';
import type { AsrAccuracy } from '../../src/domain/callers.js';
import type { MetricResult, Simulation, Turn } from '../../src/domain/simulations.js';
import { newId } from '../../src/ids.js';

/*
 * The simulations of the comparison bench (./compare.ts), shaped as a real audio simulation
 * stores them: a one-minute Vapi call of ten turns (five caller lines with what the provider heard,
 * five agent replies with their latencies and speech times), the provider's own transcript of the
 * same ten turns, three judged metrics with a judge's one- or two-sentence reasoning each, the
 * caller's figures with two silences and a misheard number or name, the line, the agent
 * configuration and the usage by model. Measured on the bench's records (JSON, mean of 200):
 * results ≈ 0.69 KB, audio ≈ 2.36 KB (of which the provider transcript ≈ 1.22 KB), so ≈ 3.1 KB of
 * results and audio a simulation, and turns ≈ 2.37 KB. Every value is drawn from a seeded
 * generator, so the same store is written every run.
 */

const AT = '2026-06-01T12:00:00.000Z';
export const PERSONAS = 50;

/** A deterministic generator (mulberry32): the same store every run. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CALLER_LINES = [
  'Hi, I ordered a parcel last Tuesday and it still has not arrived.',
  'The order number is four seven two nine one, under the name Dana Whitfield.',
  'Can you tell me where it is right now and when it will get here?',
  'Okay, and will I need to be at home to sign for it?',
  'Great, thanks for your help, that is everything for today.',
];

const AGENT_LINES = [
  'Thanks for calling Parcelpoint, I am sorry your parcel is late. Could I have your order number please?',
  'Thank you, Dana. I can see order 47291: it left our Leeds depot yesterday evening and is with the courier now.',
  'It is out for delivery tomorrow between nine and one, and your tracking number is TRK 88 41 20.',
  'No signature is needed: the courier can leave it in a safe place or with a neighbour if you are out.',
  'You are welcome, Dana. You will get a text when it is an hour away. Have a good afternoon!',
];

const REASONING = [
  'The agent gave the tracking number and a delivery window after confirming the order. The caller did not need to ask twice.',
  'The agent apologised for the delay and kept a warm, professional tone throughout the call.',
  'Each reply answered the question asked in one or two sentences, without reading out policy text.',
  'The agent never stated a delivery date, so the caller left without knowing when the parcel would arrive.',
];

const METRICS: [name: string, category: string, type: string][] = [
  ['Gives tracking', 'accuracy', 'llm_judge'],
  ['Polite', 'tone', 'llm_judge'],
  ['Brief', 'efficiency', 'llm_judge'],
];

function resultsOf(rand: () => number, passed: boolean): MetricResult[] {
  return METRICS.map(([name, category, type], m) => {
    const ok = m === 0 ? passed : rand() < (m === 1 ? 0.9 : 0.97);
    return {
      metric_id: `met_${name.toLowerCase().replace(' ', '_')}`,
      name,
      category,
      type,
      score: ok ? 80 + Math.round(rand() * 20) : Math.round(rand() * 50),
      passed: ok,
      reasoning: ok ? REASONING[m]! : REASONING[3]!,
    };
  });
}

/** A call's ten turns: caller lines (what the provider heard too), agent replies with latencies. */
function turnsOf(rand: () => number, slower: number): Turn[] {
  const turns: Turn[] = [];
  let at = 1_200;
  for (let i = 0; i < 5; i++) {
    const said = CALLER_LINES[i]!;
    const callerEnd = at + 2_500 + Math.round(rand() * 1_500);
    turns.push({
      role: 'caller',
      text: said,
      at_ms: at,
      latency_ms: null,
      audio: { start_ms: at, end_ms: callerEnd },
      source: 'model',
      heard:
        i === 1 && rand() < 0.3 ? said.replace('four seven', 'four eleven') : said.toLowerCase(),
    });
    const latency = Math.round(450 + slower + rand() * 400);
    const agentStart = callerEnd + latency;
    const agentEnd = agentStart + 4_000 + Math.round(rand() * 2_000);
    turns.push({
      role: 'agent',
      text: AGENT_LINES[i]!,
      at_ms: agentStart,
      latency_ms: latency,
      audio: { start_ms: agentStart, end_ms: agentEnd },
      source: 'provider',
    });
    at = agentEnd + 600 + Math.round(rand() * 800);
  }
  return turns;
}

/** A line as the caller's figures record it (the call's own rate where narrower). */
function lineOf(rand: () => number, profile: Profile) {
  return {
    profile,
    codec: 'mulaw' as const,
    sample_rate: 8000,
    loss_percent: profile === 'mobile' ? 2 : 0,
    jitter_ms: profile === 'mobile' ? 30 : 0,
    latency_ms: 0,
    seed: Math.floor(rand() * 2 ** 31),
  };
}

function callerOf(rand: () => number, profile: Profile, ms: (n: number) => number) {
  const misheard: AsrAccuracy['misheard'] = [
    { said: '47291', heard: rand() < 0.5 ? '47211' : null, kind: 'number' },
  ];
  if (rand() < 0.3) misheard.push({ said: 'Whitfield', heard: 'Whitfeld', kind: 'name' });
  return {
    line: { ...lineOf(rand, profile), frames: 3_000, frames_lost: Math.floor(rand() * 60) },
    noise: { bed: rand() < 0.5 ? 'cafe' : 'street', snr_db: 10 + Math.round(rand() * 10) },
    barge_ins: {
      count: 1,
      stop_ms: { p50: ms(300), p90: ms(400), max: ms(500) },
      not_stopped: Math.floor(rand() * 1.3),
    },
    backchannels: { count: 2, false_yields: Math.floor(rand() * 2) },
    silences: [
      { at_ms: 14_200 + Math.round(rand() * 3_000), ms: 3_000, reprompt_ms: ms(3_400) },
      { at_ms: 41_800 + Math.round(rand() * 3_000), ms: 5_000, reprompt_ms: null },
    ],
    dtmf: [],
    hung_up: false,
    asr: asrOf(Math.floor(rand() * 6), Math.floor(rand() * 2), misheard),
  };
}

function asrOf(substitutions: number, deletions: number, misheard: AsrAccuracy['misheard']) {
  const words = 64;
  const wer = (substitutions + deletions) / words;
  return { words, substitutions, deletions, insertions: 0, wer, misheard };
}

type Profile = 'phone' | 'mobile';

function audioOf(rand: () => number, o: { slower: number; turns: Turn[]; profile: Profile }) {
  const ms = (base: number) => Math.round(base + o.slower + rand() * 200);
  const { turns } = o;
  const replies = turns.flatMap((t) => (t.latency_ms === null ? [] : [t.latency_ms]));
  replies.sort((a, b) => a - b);
  const caller = callerOf(rand, o.profile, ms);
  return {
    transport: 'vapi',
    call_id: `call_${Math.floor(rand() * 2 ** 48).toString(16)}`,
    sample_rate: 16000,
    duration_ms: 58_000 + Math.round(rand() * 6_000),
    time_to_first_audio_ms: ms(700),
    response_latency_ms: { p50: replies[2]!, p90: replies[4]!, max: replies[4]! },
    talk_over: { count: Math.floor(rand() * 3), total_ms: ms(100) },
    long_silences: Math.floor(rand() * 2),
    agent_speech_ms: 26_000 + Math.round(rand() * 6_000),
    caller_speech_ms: 16_000 + Math.round(rand() * 4_000),
    talk_ratio: 1.5,
    caller_think_ms: 2_500 + Math.round(rand() * 1_500),
    pacing: { frames: 3_000, late_p50_ms: 0.4, late_p99_ms: 2.1, late_max_ms: 5.3 },
    voice_activity: { detector: 'silero', reason: null },
    agent_text_source: 'provider',
    provider_transcript: turns.map((t) => ({
      role: t.role === 'agent' ? 'agent' : 'caller',
      text: t.heard ?? t.text,
      at_ms: t.at_ms,
    })),
    recording: true,
    caller,
  } satisfies AudioSummary;
}

export interface Side {
  executionId: string;
  passRate: number;
  slower: number;
  mode: 'audio' | 'text';
}

function identityOf(i: number) {
  return {
    run: Math.floor(i / PERSONAS) + 1,
    scenario_hash: 'a'.repeat(64),
    scorecard_hash: 'b'.repeat(64),
    agent_config: {
      version_id: 3,
      hash: 'c'.repeat(64),
      provider_hash: 'd'.repeat(64),
      overrides: ['model.temperature'],
      channel: 'provider',
      replica_model: null,
      tools: [],
    },
  };
}

const USAGE = {
  llm_calls: 12,
  input_tokens: 9_400,
  cached_input_tokens: 3_100,
  output_tokens: 820,
  by_model: [
    {
      role: 'caller' as const,
      model: 'gpt-4o-mini',
      llm_calls: 6,
      input_tokens: 5_200,
      cached_input_tokens: 2_000,
      output_tokens: 310,
    },
    {
      role: 'judge' as const,
      model: 'gpt-4o',
      llm_calls: 6,
      input_tokens: 4_200,
      cached_input_tokens: 1_100,
      output_tokens: 510,
    },
  ],
};

/** Simulation i of a side: persona i mod 50, run ⌊i / 50⌋ + 1. */
export function simulationOf(side: Side, i: number, rand: () => number): Simulation {
  const passed = rand() < side.passRate;
  const audio = side.mode === 'audio';
  const spoken = turnsOf(rand, side.slower);
  // A text simulation's turns carry no speech times, heard text or source.
  const turns = audio
    ? spoken
    : spoken.map(({ role, text, at_ms, latency_ms }) => ({ role, text, at_ms, latency_ms }));
  const profile: Profile = rand() < 0.5 ? 'phone' : 'mobile';
  const results = resultsOf(rand, passed);
  return {
    id: newId('sim'),
    execution_id: side.executionId,
    scenario_id: 'scn_bench',
    persona_id: `per_${i % PERSONAS}`,
    agent_id: 'agt_bench',
    channel: 'provider',
    mode: side.mode,
    ...identityOf(i),
    status: 'completed',
    created_at: AT,
    started_at: AT,
    ended_at: AT,
    duration_ms: 60_000,
    end_reason: 'agent_ended',
    turns,
    score: Math.round(results.reduce((n, r) => n + r.score!, 0) / results.length),
    passed,
    results,
    usage: USAGE,
    cost_usd: 0.0412,
    unpriced_models: [],
    audio: audio ? audioOf(rand, { slower: side.slower, turns, profile }) : null,
    recording: audio ? `recordings/${side.executionId}-${i}.wav` : null,
    line: audio ? lineOf(rand, profile) : null,
    error: null,
  };
}
