import type { AudioSummary } from '../domain/audio.js';
import type { ImportedToolCall, TranscriptTurn } from '../domain/providers.js';
import type { Turn } from '../domain/simulations.js';
import type { EndReason } from '../conversation/end-reasons.js';
import type { StoredCall } from '../store/calls.js';
import { measureCall, type Speech } from '../voice/call-measures.js';
import type { Conversation } from './scoring.js';

/*
 * An imported call as a conversation the scoring module scores like a simulation: its transcript
 * (the user is the caller) with its tool calls placed by time, the latency figures its transcript
 * times give, and who ended it. What a call's record cannot tell (what the provider's recognition
 * heard, how the agent took barge-ins and backchannels, silences it re-prompted) is not
 * applicable, said per metric type (Conversation.notApplicable), never a silent pass or an error.
 */

/** Metric types only a simulated audio call measures: the caller's acts and what was said. */
const AUDIO_ONLY: Record<string, string> = {
  max_asr_wer:
    "an imported call's record holds the provider's transcript, not what the caller really said, so there is no word error rate to measure.",
  max_false_yields:
    "an imported call's record does not say which caller words were backchannels, so false yields cannot be counted.",
  max_barge_in_stop_ms:
    "an imported call's record does not time when the agent's audio stopped after the caller barged in.",
  reprompts_after_silence:
    "an imported call's record does not mark the caller's silences or the agent's re-prompts after them.",
};

const LATENCY_TYPES = ['max_latency_ms', 'max_response_latency_ms'] as const;

/** A transcript turn with its start, the one figure every timing measure needs. */
type Timed = TranscriptTurn & { startMs: number };
const isTimed = (t: TranscriptTurn): t is Timed => t.startMs !== null;

/**
 * Tool calls placed into the transcript by time. A tool call goes before the first turn that
 * started after it (at the same moment, after the turn: a provider lists a call on the turn that
 * asked for it). An untimed turn started no earlier than the speech before it reached, so a call
 * up to that point goes before it. Untimed tool calls come last, in their order.
 */
function mergeByTime(call: StoredCall): Turn[] {
  const pending = call.toolCalls.filter((tc) => tc.atMs !== null).sort((a, b) => a.atMs! - b.atMs!);
  const turns: Turn[] = [];
  let reached = 0;
  const flushUntil = (before: (atMs: number) => boolean) => {
    while (pending.length && before(pending[0]!.atMs!)) turns.push(toolTurn(pending.shift()!));
  };
  for (const t of call.transcript) {
    if (t.startMs !== null) flushUntil((at) => at < t.startMs!);
    else flushUntil((at) => at <= reached);
    turns.push({
      role: t.role === 'user' ? 'caller' : 'agent',
      text: t.text,
      at_ms: t.startMs ?? reached,
      latency_ms: null,
    });
    reached = Math.max(reached, t.endMs ?? t.startMs ?? reached);
  }
  flushUntil(() => true);
  for (const tc of call.toolCalls.filter((x) => x.atMs === null)) turns.push(toolTurn(tc, reached));
  return turns;
}

const toolTurn = (tc: ImportedToolCall, fallbackAt = 0): Turn => ({
  role: 'tool',
  text: '',
  at_ms: tc.atMs ?? fallbackAt,
  latency_ms: tc.latencyMs,
  tool: { name: tc.name, arguments: tc.arguments, result: tc.result, success: tc.success },
});

/**
 * Whether the turns' ends were measured. ElevenLabs times only starts, and its adapter ends each
 * turn where the next entry of the call starts (a turn, a tool call, or an entry of tool results
 * alone): such ends leave no gap to measure, and would read as instant replies. Ends of which at
 * least half are exactly a later start, one of them the next turn's, are taken as inferred:
 * measured speech (Vapi's endTime, Retell's word times) does not end to the millisecond where the
 * next entry begins.
 */
function endsMeasured(call: StoredCall): boolean {
  const t = call.transcript;
  const starts = new Set<number>([
    ...t.flatMap((turn) => (turn.startMs === null ? [] : [turn.startMs])),
    ...call.toolCalls.flatMap((tc) => (tc.atMs === null ? [] : [tc.atMs])),
  ]);
  const ends = t.flatMap((turn) => (turn.endMs === null ? [] : [turn.endMs]));
  const chainedToNext = t.some(
    (turn, i) => turn.endMs !== null && turn.endMs === t[i + 1]?.startMs,
  );
  const atStarts = ends.filter((end) => starts.has(end)).length;
  return ends.length < 2 || !chainedToNext || atStarts * 2 < ends.length;
}

/** Speech spans of one side: the turns with both times (an agent turn's end may be unknown). */
function spansOf(turns: Timed[], allowOpenEnd: boolean): Speech[] {
  return turns.flatMap((t) =>
    t.endMs !== null
      ? [{ start: t.startMs, end: Math.max(t.startMs, t.endMs) }]
      : allowOpenEnd
        ? [{ start: t.startMs, end: t.startMs }]
        : [],
  );
}

interface CallTiming {
  audio: AudioSummary | null;
  /** Per agent turn of the transcript, in order: its reply latency, null when it was not a reply. */
  agentLatencies: (number | null)[];
  notApplicable: Record<string, string>;
}

/**
 * The latency figures of the transcript times, measured as an audio simulation measures its
 * speech (voice/call-measures.ts): an agent turn's latency is its start less the end of the caller
 * turn it answered; talking over is agent speech starting during the caller's.
 */
function callTiming(call: StoredCall): CallTiming {
  const agentTurns = call.transcript.filter((t) => t.role === 'agent');
  const timedAgent = agentTurns.filter(isTimed);
  const timedCaller = call.transcript.filter((t) => t.role === 'user').filter(isTimed);
  const notApplicable: Record<string, string> = {};
  if (!call.transcript.some(isTimed)) {
    const why = "the call's transcript has no times, so latency cannot be measured.";
    for (const type of [...LATENCY_TYPES, 'max_time_to_first_audio_ms', 'max_talk_over_ms'])
      notApplicable[type] = why;
    return { audio: null, agentLatencies: agentTurns.map(() => null), notApplicable };
  }
  const measured = endsMeasured(call);
  const caller = measured ? spansOf(timedCaller, false) : [];
  const agent = spansOf(timedAgent, true);
  const m = measureCall(caller, agent);
  const latencyOf = new Map(timedAgent.map((t, i) => [t, m.perAgent[i]?.latencyMs ?? null]));
  const agentLatencies = agentTurns.map((t) => latencyOf.get(t as Timed) ?? null);
  if (agentTurns.length && !isTimed(agentTurns[0]!))
    notApplicable.max_time_to_first_audio_ms =
      "the agent's first turn has no time in the call's transcript.";
  if (!agentLatencies.some((l) => l !== null))
    for (const type of LATENCY_TYPES)
      notApplicable[type] = measured
        ? "no agent turn of the call's transcript answers a caller turn whose end is timed."
        : "the call's transcript times when turns start, not when the caller stopped speaking.";
  if (!measured || !caller.length || !agent.some((a) => a.end > a.start))
    notApplicable.max_talk_over_ms = "the call's transcript does not time both sides' speech.";
  return { audio: summaryOf(call, m), agentLatencies, notApplicable };
}

/**
 * The figures the audio metrics read, in the shape an audio simulation keeps. The figures of the
 * audio itself (sample rate, pacing, the caller model's think time) have no value on an imported
 * call: zero, and nothing reads them from one.
 */
function summaryOf(call: StoredCall, m: ReturnType<typeof measureCall>): AudioSummary {
  return {
    transport: 'imported',
    call_id: call.providerCallId,
    sample_rate: 0,
    ...(call.durationMs === null ? {} : { duration_ms: call.durationMs }),
    time_to_first_audio_ms: m.timeToFirstAudioMs,
    response_latency_ms: m.responseLatency,
    talk_over: { count: m.talkOver.count, total_ms: m.talkOver.totalMs },
    long_silences: m.longSilences,
    agent_speech_ms: m.agentSpeechMs,
    caller_speech_ms: m.callerSpeechMs,
    talk_ratio: m.talkRatio,
    caller_think_ms: 0,
    pacing: { frames: 0, late_p50_ms: 0, late_p99_ms: 0, late_max_ms: 0 },
    agent_text_source: 'provider_record',
    provider_transcript: null,
    recording: false,
  };
}

/**
 * Provider end reasons (Vapi, Retell, ElevenLabs, Bland) by what they say of the call's end, the
 * first pattern that matches deciding. Calls that never became a conversation (no answer, busy,
 * voicemail) say neither side: null.
 */
const END_REASONS: [RegExp, EndReason | null][] = [
  [/voicemail|machine|did-not-answer|no[-_ ]?answer|busy|^dial[-_]|declined/i, null],
  [/error|fail|unavailable|concurrency|payment|scam/i, 'error'],
  [/silence|inactivity|idle/i, 'silence'],
  [/max[-_ ]?duration|duration[-_ ]?(exceeded|reached)|time[-_ ]?limit/i, 'max_duration'],
  [/^(customer|user|caller|client)(?![a-z])|remote party|hung up/i, 'caller_ended'],
  [/^(assistant|agent|bot)(?![a-z])|end_call|forwarded|transfer/i, 'agent_ended'],
];

/** Who ended the call, from the provider's end reason; null when it says neither side. */
export function endReasonOf(reason: string | null): EndReason | null {
  if (!reason) return null;
  return END_REASONS.find(([pattern]) => pattern.test(reason))?.[1] ?? null;
}

/**
 * An imported call as the scoring module's Conversation: transcript turns (user → caller) and tool
 * turns merged by time, each index the turn number the judge prints; agent replies carry their
 * latency; what the call cannot compute is not applicable, with the reason.
 */
export function callConversation(call: StoredCall): Conversation {
  const turns = mergeByTime(call);
  const timing = callTiming(call);
  let agentIndex = 0;
  for (const t of turns)
    if (t.role === 'agent') t.latency_ms = timing.agentLatencies[agentIndex++] ?? null;
  const notApplicable: Record<string, string> = { ...AUDIO_ONLY, ...timing.notApplicable };
  const ended = endReasonOf(call.endReason);
  if (!ended)
    notApplicable.ended_by = call.endReason
      ? `the provider's end reason "${call.endReason}" does not say who ended the call.`
      : 'the provider gave no end reason for this call.';
  // A call whose end says neither side is scored as ended in error only where nothing reads it:
  // ended_by, the one metric that does, is not applicable then.
  return { turns, endReason: ended ?? 'error', audio: timing.audio, notApplicable };
}
