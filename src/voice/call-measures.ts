import { summarize } from '../audio/stats.js';
import type { AudioFigures, AudioSummary, Percentiles } from '../domain/audio.js';
import type { ConditionFigures } from '../domain/callers.js';

/**
 * Figures of one audio call, from when each side spoke (ms from connect). The definitions follow
 * what the hosted platforms publish (README, "Audio measures"), so figures compare.
 */

export interface Speech {
  start: number;
  end: number;
}

/** Agent audio starting this long into the caller's speech counts as talking over them. */
export const TALK_OVER_MIN_MS = 200;
/** A pause of both sides longer than this is a silence. */
export const LONG_SILENCE_MS = 3_000;

export interface AgentTurnMeasure {
  /** End of the caller's speech to the start of this agent speech; null when it was not a reply. */
  latencyMs: number | null;
  /** How long this agent speech overlapped the caller's, when it started during it. */
  talkOverMs: number;
}

export interface CallMeasures {
  timeToFirstAudioMs: number | null;
  perAgent: AgentTurnMeasure[];
  responseLatency: Percentiles;
  talkOver: { count: number; totalMs: number };
  longSilences: number;
  agentSpeechMs: number;
  callerSpeechMs: number;
  talkRatio: number | null;
}

const round = (n: number) => Math.round(n);
const total = (spans: Speech[]) => spans.reduce((sum, s) => sum + (s.end - s.start), 0);

/**
 * Each agent speech measured against the caller's: a reply when it starts after the caller's
 * latest speech ended with no agent speech in between (latency); talking over when it starts
 * while the caller speaks.
 */
function measureAgentTurns(caller: Speech[], agent: Speech[]): AgentTurnMeasure[] {
  return agent.map((a, i) => {
    const during = caller.find((c) => c.start <= a.start && a.start < c.end);
    if (during) return { latencyMs: null, talkOverMs: Math.min(during.end, a.end) - a.start };
    const before = caller.filter((c) => c.end <= a.start).at(-1);
    const previousAgent = agent[i - 1];
    const answered = before && (!previousAgent || previousAgent.start < before.end);
    return { latencyMs: answered ? a.start - before.end : null, talkOverMs: 0 };
  });
}

/** Pauses longer than LONG_SILENCE_MS between any speech, on either side. */
function countLongSilences(spans: Speech[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let count = 0;
  let reach = sorted[0]?.end ?? 0;
  for (const s of sorted.slice(1)) {
    if (s.start - reach > LONG_SILENCE_MS) count++;
    reach = Math.max(reach, s.end);
  }
  return count;
}

/** Figures over many calls: latency over every reply of every call, first audio over the calls. */
export function figuresOverCalls(calls: AudioCallFigures[]): AudioFigures | null {
  if (!calls.length) return null;
  return {
    calls: calls.length,
    response_latency_ms: rounded(summarize(calls.flatMap((c) => c.latencies))),
    time_to_first_audio_ms: rounded(
      summarize(
        calls.flatMap((c) =>
          c.audio.time_to_first_audio_ms === null ? [] : [c.audio.time_to_first_audio_ms],
        ),
      ),
    ),
    talk_overs: calls.reduce((n, c) => n + c.audio.talk_over.count, 0),
    by_conditions: byConditions(calls),
  };
}

export interface AudioCallFigures {
  audio: AudioSummary;
  latencies: number[];
}

/**
 * The calls grouped by the caller's noise and line, each group's latency and word errors, so a
 * tester sees where the agent struggles ("mishears callers in cafes on mobile lines").
 */
function byConditions(calls: AudioCallFigures[]): ConditionFigures[] {
  const groups = new Map<string, AudioCallFigures[]>();
  for (const c of calls) {
    const key = JSON.stringify(conditionsOf(c.audio));
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.entries()].map(([key, group]) => {
    const asr = group.flatMap((c) => (c.audio.caller?.asr ? [c.audio.caller.asr] : []));
    const words = asr.reduce((n, a) => n + a.words, 0);
    const errors = asr.reduce((n, a) => n + a.substitutions + a.deletions + a.insertions, 0);
    return {
      ...(JSON.parse(key) as { noise: string; line: string }),
      calls: group.length,
      response_latency_ms: rounded(summarize(group.flatMap((c) => c.latencies))),
      wer: words ? Math.round((errors / words) * 10_000) / 10_000 : null,
      misheard: asr.reduce((n, a) => n + a.misheard.length, 0),
    };
  });
}

/** Calls from before realistic callers ran on a studio line without noise. */
const conditionsOf = (a: AudioSummary) => ({
  noise: a.caller?.noise.bed ?? 'none',
  line: a.caller?.line.profile ?? 'studio',
});

const rounded = (p: Percentiles): Percentiles => ({
  p50: p.p50 === null ? null : Math.round(p.p50),
  p90: p.p90 === null ? null : Math.round(p.p90),
  max: p.max === null ? null : Math.round(p.max),
});

export function measureCall(caller: Speech[], agent: Speech[]): CallMeasures {
  const perAgent = measureAgentTurns(caller, agent);
  const latencies = perAgent.flatMap((m) => (m.latencyMs === null ? [] : [m.latencyMs]));
  const overs = perAgent.filter((m) => m.talkOverMs >= TALK_OVER_MIN_MS);
  const agentSpeechMs = total(agent);
  const callerSpeechMs = total(caller);
  const latency = summarize(latencies);
  return {
    timeToFirstAudioMs: agent[0] ? round(agent[0].start) : null,
    perAgent,
    responseLatency: {
      p50: latency.p50 === null ? null : round(latency.p50),
      p90: latency.p90 === null ? null : round(latency.p90),
      max: latency.max === null ? null : round(latency.max),
    },
    talkOver: {
      count: overs.length,
      totalMs: round(total(overs.map((m) => ({ start: 0, end: m.talkOverMs })))),
    },
    longSilences: countLongSilences([...caller, ...agent]),
    agentSpeechMs: round(agentSpeechMs),
    callerSpeechMs: round(callerSpeechMs),
    talkRatio: callerSpeechMs > 0 ? Math.round((agentSpeechMs / callerSpeechMs) * 100) / 100 : null,
  };
}
