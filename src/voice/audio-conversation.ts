import type { LineStats } from '../audio/line.js';
import { resampleInSlices } from '../audio/pcm.js';
import { agentVoiceActivity, type VoiceActivityFactory } from '../audio/voice-activity.js';
import type { AudioSummary } from '../domain/audio.js';
import { BACKCHANNEL_PHRASES } from '../domain/callers.js';
import { measureCall } from './call-measures.js';
import { CallDriver } from './call-driver.js';
import { conditionsOnCall, noiseBedFor } from './caller-conditions.js';
import { inTurns, voiceScriptLine, voiceText, type LineVoicing } from './caller-lines.js';
import { measureCaller } from './caller-measures.js';
import { answerPauseMs, deliveredVoice } from './delivery.js';
import { AGENT_TURNS, CallInbox, LiveCall, spoken, type Utterance } from './live-call.js';
import { assembleTurns } from './call-turns.js';
import type { AudioCall } from './transport.js';
import type { AudioConversationSetup, AudioOutcome, Ending } from './types.js';

/** What is made before dialling, so that neither synthesis nor file reads count as the agent's latency. */
interface Prepared {
  voicing: LineVoicing;
  script: (Utterance | null)[] | null;
  backchannels: Utterance[];
  bed: Int16Array | null;
  voiceActivity: VoiceActivityFactory;
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
  // Silero's thread starts (once a process) before dialling, never in a call's time.
  const voiceActivity = await agentVoiceActivity(AGENT_TURNS);
  if (!script) await warmVoice(voicing);
  return { voicing, script, backchannels, bed, voiceActivity };
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
  const inbox = new CallInbox(setup.lineRate);
  const call = await setup.dial({
    ...setup.request,
    events: inbox,
    signal: setup.signal ?? new AbortController().signal,
  });
  try {
    // A transport that took another rate than it said: converted now (the first frame waits).
    if (call.sampleRate !== setup.lineRate)
      await toCallRate(prepared, setup.lineRate, call.sampleRate);
    return await runCall(setup, call, inbox, prepared);
  } catch (err) {
    await call.hangup().catch(() => {});
    throw err;
  }
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
  call: AudioCall,
  inbox: CallInbox,
  prepared: Prepared,
): Promise<AudioOutcome> {
  const parts = conditionsOnCall(setup.conditions, prepared.bed, call.sampleRate);
  // The model caller must hear the agent during the call: where the line carries no text, STT.
  const sttNeeded =
    call.agentTextSource === 'stt' ||
    (call.agentTextSource === 'provider_record' && !prepared.script);
  let driver: CallDriver | null = null;
  const live = new LiveCall(call, {
    maxMs: setup.limits.maxDurationMs + 10_000,
    keepAgentAudio: sttNeeded,
    onFrame: (now) => driver?.onFrame(now),
    onAgentTurnEnd: (now) => driver?.onAgentTurnEnd(now),
    onEnded: (end) => driver?.onFarEnd(end),
    noise: parts.noise,
    line: parts.line,
    voiceActivity: prepared.voiceActivity,
  });
  driver = new CallDriver({
    setup,
    call,
    inbox,
    live,
    script: prepared.script,
    dice: parts.dice,
    voicing: prepared.voicing,
    backchannels: prepared.backchannels,
    pauseMs: answerPauseMs(setup.persona),
    sttNeeded,
  });
  const ending = await driver.run();
  return outcome(
    { setup, call, inbox, live, driver, lineStats: parts.line?.stats() ?? null },
    ending,
  );
}

interface Finished {
  setup: AudioConversationSetup;
  call: AudioCall;
  inbox: CallInbox;
  live: LiveCall;
  driver: CallDriver;
  lineStats: LineStats | null;
}

async function outcome(
  f: Finished,
  ending: Exclude<Ending, { interrupted: true }>,
): Promise<AudioOutcome> {
  const { live, call, setup } = f;
  // Calls often end together (a time limit): each one's summing-up takes its own turn of the
  // event loop, so the calls still live keep their frames on time.
  await yieldTurn();
  const measures = measureCall(live.callerSpeech, live.agentSpeech);
  const providerTranscript = await call.providerTranscript().catch(() => null);
  const assembled = await assembleTurns({
    caller: live.callerSpeech,
    agent: live.agentSpeech,
    measures,
    inbox: f.inbox,
    source: call.agentTextSource,
    toolCalls: call.reportsToolCalls ? f.inbox.toolCalls : null,
    providerTranscript,
    transcribe: (pcm) => setup.speech.transcribe(pcm, live.rate, setup.signal),
  });
  const pacing = live.pacing();
  const caller = measureCaller({
    conditions: setup.conditions,
    log: f.driver.log,
    lineStats: f.lineStats,
    callRate: live.rate,
    frames: pacing.frames,
    caller: live.callerSpeech,
    agent: live.agentSpeech,
    activity: live.agentActivity,
    turns: assembled.turns,
  });
  const audio: AudioSummary = {
    transport: setup.transport,
    call_id: call.callId,
    sample_rate: live.rate,
    duration_ms: Math.round(live.durationMs),
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
    voice_activity: live.voiceActivity(),
    agent_text_source: call.agentTextSource,
    provider_transcript:
      providerTranscript?.map((t) => ({ role: t.role, text: t.text, at_ms: t.atMs })) ?? null,
    recording: true,
    caller,
  };
  const base = {
    turns: assembled.turns,
    failedExpectations: assembled.failedExpectations,
    audio,
    wav: await yieldTurn().then(() => live.recording.toWav()),
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
