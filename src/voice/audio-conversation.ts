import { resampleInSlices } from '../audio/pcm.js';
import { agentVoiceActivity } from '../audio/voice-activity.js';
import type { AudioSummary } from '../domain/audio.js';
import { BACKCHANNEL_PHRASES } from '../domain/callers.js';
import { measureCall } from './call-measures.js';
import { CallDriver } from './call-driver.js';
import { callerDice, noiseBedFor, soundOnCall } from './caller-conditions.js';
import { LocalCall, type CallSession } from './call-session.js';
import { dialerFor } from './transports/index.js';
import { inTurns, voiceScriptLine, voiceText, type LineVoicing } from './caller-lines.js';
import { measureCaller } from './caller-measures.js';
import { answerPauseMs, deliveredVoice } from './delivery.js';
import { AGENT_TURNS, CallInbox, spoken, type Utterance } from './live-call.js';
import { assembleTurns } from './call-turns.js';
import type { AudioConversationSetup, AudioOutcome, Ending } from './types.js';

/** What is made before dialling, so that neither synthesis nor file reads count as the agent's latency. */
interface Prepared {
  voicing: LineVoicing;
  script: (Utterance | null)[] | null;
  backchannels: Utterance[];
  bed: Int16Array | null;
}

/**
 * Everything the caller will need that can be made before the call: its scripted lines and
 * backchannels voiced at the line's rate, and its noise bed read. A failure here (a speech engine,
 * a missing noise bed) fails the simulation with nothing dialled.
 */
async function prepareCaller(setup: AudioConversationSetup): Promise<Prepared> {
  const voicing: LineVoicing = {
    speech: setup.speech,
    voice: deliveredVoice(setup.voice, setup.persona.emotion),
    variables: setup.variables,
    rate: setup.lineRate,
    dtmfEvents: setup.dtmfEvents,
    signal: setup.signal,
  };
  const bed = await noiseBedFor(setup.conditions, setup.noiseDir);
  const lines = setup.scenario.script;
  const script = lines ? await inTurns(lines, (l) => voiceScriptLine(l, voicing)) : null;
  const b = setup.conditions.behaviours?.backchannel;
  const phrases = b && b.probability > 0 ? (b.phrases ?? BACKCHANNEL_PHRASES) : null;
  const backchannels = phrases
    ? await inTurns(phrases, async (text) =>
        spoken(await voiceText(text, voicing), setup.lineRate, { text, source: 'script' }),
      )
    : [];
  if (!script) await warmVoice(voicing);
  return { voicing, script, backchannels, bed };
}

/** Said (and cached) before a model caller's call, to wake its voice: see warmVoice. */
const WARM_UP_WORDS = 'Hello.';

/**
 * A model caller's lines are voiced during the call: the system voice speaks a word first, so its
 * program and voice data are loaded (read from disk, on a cold start) before the call's clock
 * runs. A cloud voice is not asked: that would be a paid request for nothing.
 */
async function warmVoice(voicing: LineVoicing): Promise<void> {
  if (voicing.voice.engine === 'system') await voiceText(WARM_UP_WORDS, voicing);
}

/**
 * One simulated audio call: the caller's lines are voiced (scripted ones before dialling, so
 * synthesis never counts as the agent's latency), spoken on the live call at real-time pace over
 * the persona's noise and the simulation's line, and the agent's answers measured from its audio.
 * Ends when the agent hangs up, the caller is done or hangs up, a limit is reached, or the line
 * drops.
 */
export async function converseByAudio(setup: AudioConversationSetup): Promise<AudioOutcome> {
  const prepared = await prepareCaller(setup);
  const signal = setup.signal ?? new AbortController().signal;
  const session = setup.audioThreads
    ? await setup.audioThreads.dial({ plan: dialPlan(setup), signal })
    : await dialHere(setup, prepared.bed, signal);
  try {
    // A transport that took another rate than it said: converted now (the first frame waits).
    if (session.rate !== setup.lineRate) await toCallRate(prepared, setup.lineRate, session.rate);
    return await runCall(setup, session, prepared);
  } finally {
    await session.release();
  }
}

function dialPlan(setup: AudioConversationSetup) {
  const { provider, request, lineRate, conditions, noiseDir } = setup;
  return { provider, request, lineRate, conditions, noiseDir };
}

/** The call with its frames on this thread (no audio threads: the engine's own baseline). */
async function dialHere(
  setup: AudioConversationSetup,
  bed: Int16Array | null,
  signal: AbortSignal,
): Promise<CallSession> {
  // Silero's thread starts (once a process) before dialling, never in a call's time.
  const voiceActivity = await agentVoiceActivity(AGENT_TURNS);
  const dialer = dialerFor(setup.provider);
  if ('refused' in dialer) throw new Error(dialer.refused);
  const inbox = new CallInbox(setup.lineRate);
  const call = await dialer.dial({ ...setup.request, events: inbox, signal });
  const sound = soundOnCall(setup.conditions, bed, call.sampleRate);
  return new LocalCall(call, inbox, { ...sound, voiceActivity });
}

async function toCallRate(p: Prepared, from: number, to: number): Promise<void> {
  const convert = async (u: Utterance): Promise<Utterance> => {
    const pcm = await resampleInSlices(u.pcm, from, to);
    return { ...u, pcm };
  };
  if (p.script) p.script = await inTurns(p.script, (u) => (u ? convert(u) : Promise.resolve(null)));
  p.backchannels = await inTurns(p.backchannels, convert);
  p.voicing = { ...p.voicing, rate: to };
}

async function runCall(
  setup: AudioConversationSetup,
  session: CallSession,
  prepared: Prepared,
): Promise<AudioOutcome> {
  // The model caller must hear the agent during the call: where the line carries no text, STT.
  const sttNeeded =
    session.agentTextSource === 'stt' ||
    (session.agentTextSource === 'provider_record' && !prepared.script);
  const driver = new CallDriver({
    setup,
    session,
    start: { maxMs: setup.limits.maxDurationMs + 10_000, keepAgentAudio: sttNeeded },
    script: prepared.script,
    dice: callerDice(setup.conditions),
    voicing: prepared.voicing,
    backchannels: prepared.backchannels,
    pauseMs: answerPauseMs(setup.persona),
    sttNeeded,
  });
  const ending = await driver.run();
  return outcome({ setup, session, driver }, ending);
}

interface Finished {
  setup: AudioConversationSetup;
  session: CallSession;
  driver: CallDriver;
}

async function outcome(
  f: Finished,
  ending: Exclude<Ending, { interrupted: true }>,
): Promise<AudioOutcome> {
  const { session, setup } = f;
  const record = await session.end();
  // Calls often end together (a time limit): each one's summing-up takes its own turn of the
  // event loop, so the calls still live keep their frames on time.
  await yieldTurn();
  const measures = measureCall(session.callerSpeech, session.agentSpeech);
  const providerTranscript = await session.providerTranscript().catch(() => null);
  const assembled = await assembleTurns({
    caller: session.callerSpeech,
    agent: session.agentSpeech,
    measures,
    inbox: session.texts,
    source: session.agentTextSource,
    toolCalls: session.reportsToolCalls ? session.texts.toolCalls : null,
    providerTranscript,
    transcribe: (pcm) => setup.speech.transcribe(pcm, session.rate, setup.signal),
  });
  const { pacing } = record;
  const caller = measureCaller({
    conditions: setup.conditions,
    log: f.driver.log,
    lineStats: record.lineStats,
    callRate: session.rate,
    frames: pacing.frames,
    caller: session.callerSpeech,
    agent: session.agentSpeech,
    activity: record.activity,
    turns: assembled.turns,
  });
  const audio: AudioSummary = {
    transport: setup.transport,
    call_id: session.callId,
    sample_rate: session.rate,
    duration_ms: Math.round(record.durationMs),
    time_to_first_audio_ms: firstAudioMs(measures.timeToFirstAudioMs, f.driver),
    response_latency_ms: measures.responseLatency,
    talk_over: { count: measures.talkOver.count, total_ms: measures.talkOver.totalMs },
    long_silences: measures.longSilences,
    agent_speech_ms: measures.agentSpeechMs,
    caller_speech_ms: measures.callerSpeechMs,
    talk_ratio: measures.talkRatio,
    caller_think_ms: Math.round(f.driver.callerThinkMs),
    pacing: {
      frames: pacing.frames,
      late_p50_ms: round1(pacing.lateP50Ms),
      late_p99_ms: round1(pacing.lateP99Ms),
      late_max_ms: round1(pacing.lateMaxMs),
    },
    voice_activity: record.voiceActivity,
    agent_text_source: session.agentTextSource,
    provider_transcript:
      providerTranscript?.map((t) => ({ role: t.role, text: t.text, at_ms: t.atMs })) ?? null,
    recording: true,
    caller,
  };
  const base = {
    turns: assembled.turns,
    failedExpectations: assembled.failedExpectations,
    audio,
    wav: record.wav,
  };
  if ('cancelled' in ending)
    return { ...base, endReason: 'caller_ended', cancelled: true, failure: null };
  if ('failure' in ending) return { ...base, endReason: 'error', failure: ending.failure };
  return { ...base, endReason: ending.reason, failure: null };
}

/**
 * Time to first audio, less the caller's think time before it: an agent that waits for the
 * caller to speak first is not charged for the caller model writing and voicing its opening
 * (slower on a call's first line, and on the first call after a start).
 */
function firstAudioMs(atMs: number | null, driver: CallDriver): number | null {
  if (atMs === null) return null;
  return Math.max(0, atMs - Math.round(driver.thinkDoneBy(atMs)));
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
