import { lineRateOn, type LineStats } from '../audio/line.js';
import type { AgentActivity } from './agent-activity.js';
import { summarize } from '../audio/stats.js';
import type { AsrAccuracy, CallerSummary } from '../domain/callers.js';
import type { Turn } from '../domain/simulations.js';
import type { CallerLog } from './types.js';
import type { CallerConditions } from './caller-conditions.js';
import type { Speech } from './call-measures.js';
import type { CallerSpeech } from './live-call.js';
import { sumWordErrors, wordErrors } from './word-errors.js';

/**
 * How the agent took what the caller did: how fast it stopped when talked over, whether it
 * stopped for a mere "mm-hmm", whether it spoke into a silence, and how well its recognition
 * heard the caller's words. Definitions in the README ("Realistic callers").
 */

/** An agent still talking this long after a barge-in did not stop for it. */
export const NOT_STOPPED_MS = 2_000;
/** An agent that stops this soon after a backchannel began yielded to it: a false yield. */
export const FALSE_YIELD_MS = 1_000;

/** The agent speech under way when the caller started speaking at `atMs`. */
const agentSpeakingAt = (agent: Speech[], atMs: number) =>
  agent.find((a) => a.start <= atMs && atMs < a.end);

/** From the caller cutting in at `atMs` to the agent's audio stopping; null: it was not talking. */
function stopMs(atMs: number, agent: Speech[], activity: AgentActivity): number | null {
  const a = agentSpeakingAt(agent, atMs);
  if (!a) return null;
  const stopped = activity.stoppedAfter(atMs);
  return Math.min(a.end, stopped ?? a.end) - atMs;
}

function bargeIns(f: CallerFigures): CallerSummary['barge_ins'] {
  const stops = f.caller
    .filter((c) => c.utterance.act === 'barge_in')
    .flatMap((c) => {
      const ms = stopMs(c.start, f.agent, f.activity);
      return ms === null ? [] : [ms];
    });
  const s = summarize(stops);
  const round = (n: number | null) => (n === null ? null : Math.round(n));
  return {
    count: stops.length,
    stop_ms: { p50: round(s.p50), p90: round(s.p90), max: round(s.max) },
    not_stopped: stops.filter((ms) => ms >= NOT_STOPPED_MS).length,
  };
}

function backchannels(f: CallerFigures): CallerSummary['backchannels'] {
  const over = f.caller.filter((c) => c.utterance.act === 'backchannel');
  const yields = over.filter((c) => {
    const ms = stopMs(c.start, f.agent, f.activity);
    return ms !== null && ms < FALSE_YIELD_MS;
  });
  return { count: over.length, false_yields: yields.length };
}

function silences(log: CallerLog, agent: Speech[]): CallerSummary['silences'] {
  return log.silences.map((s) => {
    const reprompt = agent.find((a) => a.start >= s.atMs && a.start < s.atMs + s.ms);
    return {
      at_ms: Math.round(s.atMs),
      ms: s.ms,
      reprompt_ms: reprompt ? Math.round(reprompt.start - s.atMs) : null,
    };
  });
}

/**
 * Word errors of what the provider heard of each caller turn that has words: set on the turns
 * (`wer`), and summed over the call (null when the provider reported nothing it heard).
 */
export function recognitionAccuracy(turns: Turn[]): AsrAccuracy | null {
  const scored = turns.filter((t) => t.role === 'caller' && t.heard !== undefined && t.text);
  if (!scored.length) return null;
  const parts = scored.map((t) => {
    const errors = wordErrors(t.text, t.heard!);
    t.wer = errors.wer;
    return errors;
  });
  return sumWordErrors(parts);
}

export interface CallerFigures {
  conditions: CallerConditions;
  log: CallerLog;
  lineStats: LineStats | null;
  /** The call's sample rate: no line carries more. */
  callRate: number;
  /** Caller frames made (each goes on the line, or is lost on it). */
  frames: number;
  caller: CallerSpeech[];
  agent: Speech[];
  activity: AgentActivity;
  turns: Turn[];
}

export function measureCaller(f: CallerFigures): CallerSummary {
  const frames = f.lineStats?.frames ?? f.frames;
  const line = f.conditions.line;
  return {
    line: {
      ...line,
      sample_rate: lineRateOn(line.sample_rate, f.callRate),
      frames,
      frames_lost: f.lineStats?.lost ?? 0,
    },
    noise: { bed: f.conditions.noise.bed, snr_db: f.conditions.noise.snrDb },
    barge_ins: bargeIns(f),
    backchannels: backchannels(f),
    silences: silences(f.log, f.agent),
    dtmf: f.log.dtmf.map((d) => ({ at_ms: d.atMs, digits: d.digits, via: d.via })),
    hung_up: f.log.hungUp,
    asr: recognitionAccuracy(f.turns),
  };
}
