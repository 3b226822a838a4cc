import { performance } from 'node:perf_hooks';
import { FRAME_MS, samplesPerFrame } from '../audio/pcm.js';
import { startPacer, type Pacer } from '../audio/pacer.js';
import { PlayoutTimeline } from '../audio/playout.js';
import type { SpeechEvent } from '../audio/vad.js';
import {
  energyVoiceActivity,
  type VoiceActivity,
  type VoiceActivityFactory,
} from '../audio/voice-activity.js';
import { StereoRecording } from '../audio/wav.js';
import { AgentActivity } from './agent-activity.js';
import type { LineSimulator } from '../audio/line.js';
import { speechSpan, type NoiseMixer } from '../audio/noise-mixer.js';
import type { CallerAct } from '../domain/callers.js';
import type { CallToolCall } from '../domain/providers.js';
import type { ScriptLine } from '../domain/scenarios.js';
import {
  AGENT_AUDIO_MAX_AHEAD_MS,
  AGENT_AUDIO_TOO_FAR_AHEAD,
  type AgentAudioEvents,
  type AudioCall,
  type FarEnd,
} from './transport.js';
import type { Speech as SpeechSpan } from './call-measures.js';

/**
 * One audio call on one clock: the caller's frames go out every 20 ms (speech, else silence, never
 * a gap), the agent's audio is laid on its playout timeline as it arrives and read back frame by
 * frame for voice activity and the recording. Who speaks when is kept here; what to say next is
 * the conversation's business (audio-conversation.ts), told through `onAgentTurnEnd`.
 */

/** A caller line queued to be spoken. */
export interface Utterance {
  pcm: Int16Array;
  /** Where its speech starts and ends within `pcm` (trimming keeps a little silence around it). */
  speechFromMs: number;
  speechToMs: number;
  text: string;
  source: 'script' | 'model';
  /** Scripted lines: the expectation on the agent's reply. */
  expect?: ScriptLine['expect'];
  /** Said over the agent (a barge-in or a backchannel), or keypad digits. */
  act?: CallerAct;
  /** Keypad digits this line ends with (as tones in its audio, or the protocol's event). */
  dtmf?: string;
}

export interface CallerSpeech extends SpeechSpan {
  utterance: Utterance;
}

export interface AgentSpeech extends SpeechSpan {
  /** The agent's audio of this span, kept only where its words need speech-to-text. */
  pcm: Int16Array[];
  /** Its words by speech-to-text, where the call already needed them (a model caller listening). */
  transcript?: string;
}

/** A tool call the line reported, when it came on the call's clock. */
export interface TimedToolCall {
  atMs: number;
  call: CallToolCall;
}

/** Something the agent said as text, and when it arrived (ms from connect). */
export interface TimedText {
  atMs: number;
  text: string;
}

export type CallEnd =
  | { how: 'agent_hangup' }
  /** `misbehaved`: the agent broke a limit, and `detail` is the whole error. */
  | { how: 'dropped' | 'misbehaved'; detail: string }
  | { how: 'local' };

export interface LiveCallOptions {
  /** Most of the call to record (the recording is bounded by it). */
  maxMs: number;
  /** Keep the agent's audio per span (for speech-to-text). */
  keepAgentAudio: boolean;
  /** Asked every frame; answers whether the call should end now (and why, for the caller). */
  onFrame: (nowMs: number) => void;
  /** The agent's speech stopped and nothing more is queued to play: its turn ended. */
  onAgentTurnEnd: (nowMs: number) => void;
  /** The far side ended the call (hang-up or drop). */
  onEnded: (end: CallEnd) => void;
  /** The caller's surroundings, mixed under every frame (its silences too); null: none. */
  noise?: NoiseMixer | null;
  /** The line the caller's audio crosses (codec, band, loss, jitter, latency); null: none. */
  line?: LineSimulator | null;
  /** How the agent's speech is found in its audio (default: energy alone). */
  voiceActivity?: VoiceActivityFactory;
}

/** Agent turns: 250 ms of speech to start one, 700 ms of silence (and nothing queued) to end it. */
export const AGENT_TURNS = { startMs: 250, endMs: 700 };
/**
 * Agent windows kept for the start of a span: it is confirmed 250 ms of speech after its onset,
 * more with dips between syllables (150 ms) and Silero's judgement on its thread: 800 ms.
 */
const RECENT_WINDOWS = 40;

/**
 * A line to say, with where its speech starts and ends measured once, off the frames' clock: by
 * the same span rule that sets its level under the noise (a silent line spans its first sample).
 */
export function spoken(
  pcm: Int16Array,
  rate: number,
  what: Pick<Utterance, 'text' | 'source'>,
): Utterance {
  const span = speechSpan(pcm) ?? { start: 0, end: 1 };
  return {
    pcm,
    speechFromMs: (span.start / rate) * 1000,
    speechToMs: (span.end / rate) * 1000,
    ...what,
  };
}

/** A text or tool call the line reported, as stamped (told to an audio thread's engine). */
export type InboxEntry =
  | { kind: 'agent' | 'heard' | 'correct'; atMs: number; text: string }
  | { kind: 'tool'; atMs: number; tool: CallToolCall };

/** The receiving half: what a transport reports, stamped with the call's clock. */
export class CallInbox implements AgentAudioEvents {
  readonly agentTexts: TimedText[] = [];
  readonly heardTexts: TimedText[] = [];
  /** The tools the agent reported calling, on the call's clock. */
  readonly toolCalls: TimedToolCall[] = [];
  /** Set once the call is up: what comes before is held for it. */
  private target: LiveCall | null = null;
  /**
   * Agent audio that came before the call was up, all at the call's time 0, capped as the call's
   * own timeline is; clears are applied to it as they come, so a flood of either holds no more.
   */
  private readonly early: PlayoutTimeline;
  private clearedEarly = false;
  endedAs: CallEnd | null = null;
  onEnd: ((end: CallEnd) => void) | null = null;
  /** Told each text and tool call as it is stamped (an audio thread passes them on). */
  observe: ((entry: InboxEntry) => void) | null = null;

  /** `rate`: the call's PCM rate as planned, in whose time early audio is capped. */
  constructor(rate: number) {
    this.early = new PlayoutTimeline(rate, { maxAheadMs: AGENT_AUDIO_MAX_AHEAD_MS });
  }

  attach(call: LiveCall): void {
    this.target = call;
    // The early clears were applied to the held audio already: one is noted, before what was kept.
    if (this.clearedEarly) call.agentClear();
    for (const { pcm, eventId } of this.early.drain()) call.agentAudio(pcm, eventId);
  }
  audio(pcm: Int16Array, eventId?: number): void {
    if (this.target) return this.target.agentAudio(pcm, eventId);
    if (this.endedAs || this.early.push(pcm, 0, eventId)) return;
    this.early.drain();
    this.ended('misbehaved', AGENT_AUDIO_TOO_FAR_AHEAD);
  }
  clear(uptoEventId?: number): void {
    if (this.target) return this.target.agentClear(uptoEventId);
    this.early.flush(0, uptoEventId);
    this.clearedEarly = true;
  }
  agentText(text: string): void {
    const atMs = this.target?.nowMs() ?? 0;
    this.agentTexts.push({ atMs, text });
    this.observe?.({ kind: 'agent', atMs, text });
  }
  toolCall(call: CallToolCall): void {
    const atMs = this.target?.nowMs() ?? 0;
    this.toolCalls.push({ atMs, call });
    this.observe?.({ kind: 'tool', atMs, tool: call });
  }
  correctAgentText(text: string): void {
    correctLast(this.agentTexts, text, this.target?.nowMs() ?? 0);
    this.observe?.({ kind: 'correct', atMs: this.target?.nowMs() ?? 0, text });
  }
  heard(text: string): void {
    const atMs = this.target?.nowMs() ?? 0;
    this.heardTexts.push({ atMs, text });
    this.observe?.({ kind: 'heard', atMs, text });
  }
  ended(how: FarEnd, detail: string): void {
    if (this.endedAs) return;
    this.endedAs = how === 'agent_hangup' ? { how } : { how, detail };
    this.onEnd?.(this.endedAs);
  }
}

/** The agent was cut off: its last text becomes what it said before the cut (or the first one). */
export function correctLast(texts: TimedText[], text: string, atMs: number): void {
  const last = texts.at(-1);
  if (last) last.text = text;
  else texts.push({ atMs, text });
}

export class LiveCall {
  readonly rate: number;
  readonly callerSpeech: CallerSpeech[] = [];
  readonly agentSpeech: AgentSpeech[] = [];
  readonly recording: StereoRecording;
  /** Where the agent's audio sounded, frame by frame, and when the provider voided it. */
  readonly agentActivity: AgentActivity;
  private readonly frame: number;
  private readonly playout: PlayoutTimeline;
  private readonly vad: VoiceActivity;
  private pacer: Pacer | null = null;
  private agentReadMs = 0;
  private speaking: { u: Utterance; pos: number; startMs: number; shiftMs: number } | null = null;
  /** A line that ended in the frame being made, timed once its frame's place on the line is known. */
  private finished: { u: Utterance; startMs: number; shiftMs: number } | null = null;
  /** Where the caller's next frame starts playing at the agent (frames play in order, none overlaps). */
  private playEndMs = 0;
  private openAgent: AgentSpeech | null = null;
  /** The last RECENT_WINDOWS agent windows: speech-to-text wants the onset confirmed late. */
  private readonly recent: { atMs: number; pcm: Int16Array }[] = [];
  private agentTurnOpen = false;
  private stopped = false;
  /** The call's clock when it stopped (hung up, by either side, or dropped). */
  private endedAtMs: number | null = null;
  /** The agent's audio ran too far ahead: the call is ending, and nothing more is queued. */
  private overrun = false;

  constructor(
    readonly call: AudioCall,
    private readonly options: LiveCallOptions,
  ) {
    this.rate = call.sampleRate;
    this.frame = samplesPerFrame(this.rate);
    this.playout = new PlayoutTimeline(this.rate, { maxAheadMs: AGENT_AUDIO_MAX_AHEAD_MS });
    const activity = options.voiceActivity ?? energyVoiceActivity(AGENT_TURNS);
    this.vad = activity(this.rate, (e) => this.onVoice(e));
    this.recording = new StereoRecording({ sampleRate: this.rate, maxMs: options.maxMs });
    this.agentActivity = new AgentActivity(options.maxMs);
  }

  /**
   * Ms since the call's first caller frame, on the monotonic clock; 0 until then (the frames
   * start on a phase slot of the shared pacer, up to a frame after `start`).
   */
  nowMs(): number {
    return this.pacer ? Math.max(0, performance.now() - this.pacer.startedAt) : 0;
  }

  /** When the call's clock reads 0, on this thread's `performance.now()`; null until started. */
  get clockStartedAt(): number | null {
    return this.pacer?.startedAt ?? null;
  }

  start(): void {
    this.pacer = startPacer({
      frameMs: FRAME_MS,
      joinPhases: true,
      onFrame: (index) => this.tick(index),
      onError: (err) => this.options.onEnded({ how: 'dropped', detail: String(err) }),
    });
  }

  /** The caller is silent, with nothing queued. */
  get callerIdle(): boolean {
    return this.speaking === null;
  }

  /** The agent is speaking, or has audio queued to play. */
  agentBusy(nowMs: number): boolean {
    return this.vad.speaking || this.playout.bufferedAfter(nowMs);
  }

  /** Starts speaking `u` at the next frame (the caller is idle). */
  say(u: Utterance): void {
    this.speaking = { u, pos: 0, startMs: -1, shiftMs: 0 };
  }

  /** How long the agent has spoken in its current turn (0 outside one). */
  agentTurnSpokenMs(nowMs: number): number {
    return this.openAgent
      ? Math.max(0, Math.min(nowMs, this.agentReadMs) - this.openAgent.start)
      : 0;
  }

  agentAudio(pcm: Int16Array, eventId?: number): void {
    if (this.stopped || this.overrun) return;
    if (this.playout.push(pcm, this.nowMs(), eventId)) return;
    // No player buffers this far ahead: it is a flood, and the call ends before it is held.
    this.overrun = true;
    this.options.onEnded({ how: 'misbehaved', detail: AGENT_AUDIO_TOO_FAR_AHEAD });
  }

  agentClear(uptoEventId?: number): void {
    const now = this.nowMs();
    this.playout.flush(now, uptoEventId);
    this.agentActivity.noteClear(now);
  }

  private readonly sendToAgent = (frame: Int16Array): void => this.call.send(frame);

  private tick(index: number): void {
    if (this.stopped) return;
    const frameStart = index * FRAME_MS;
    const now = this.nowMs();
    this.sendCaller(frameStart, this.callerFrame(frameStart), now);
    this.readAgent(now);
    this.options.onFrame(now);
  }

  /**
   * Puts a caller frame on the line: the noise under it, then the line's sound, loss and delay.
   * Speech is timed where the agent hears it (its frame's place on the line), so the line's own
   * delay never counts as the agent's latency. The recording keeps what the agent was sent.
   */
  private sendCaller(frameStart: number, out: Int16Array, now: number): void {
    const { line, noise = null } = this.options;
    let shiftMs = 0;
    if (!line) {
      noise?.mixInto(out);
      this.call.send(out);
      this.recording.put('caller', frameStart, out);
    } else {
      // The line mixes the noise in itself (under its band limit, see line.ts).
      const sent = line.push(out, frameStart, noise);
      const playAt = Math.max(sent.wireAtMs, this.playEndMs);
      this.playEndMs = playAt + FRAME_MS;
      shiftMs = playAt - frameStart;
      // The line's sound is applied to `out` in place.
      if (!sent.lost) this.recording.put('caller', playAt, out);
      line.handOver(now, this.sendToAgent);
    }
    if (this.speaking && this.speaking.startMs === frameStart) this.speaking.shiftMs = shiftMs;
    const done = this.finished;
    if (done) {
      this.finished = null;
      this.callerSpeech.push({
        start: done.startMs + done.u.speechFromMs + done.shiftMs,
        end: done.startMs + done.u.speechToMs + shiftMs,
        utterance: done.u,
      });
    }
  }

  /** The next 20 ms of the caller: its line where one is being said, else silence. */
  private callerFrame(frameStart: number): Int16Array {
    const out = new Int16Array(this.frame);
    const s = this.speaking;
    if (!s) return out;
    if (s.startMs < 0) s.startMs = frameStart;
    const part = s.u.pcm.subarray(s.pos, s.pos + this.frame);
    out.set(part);
    s.pos += part.length;
    if (s.pos >= s.u.pcm.length) {
      // Timed by the speech itself, not the silence trimming left around it.
      this.finished = { u: s.u, startMs: s.startMs, shiftMs: s.shiftMs };
      this.speaking = null;
    }
    return out;
  }

  /** Reads the agent's playout up to now, a frame at a time: voice activity and the recording. */
  private readAgent(now: number): void {
    while (this.agentReadMs + FRAME_MS <= now) {
      const from = this.agentReadMs;
      const window = this.playout.take(from, from + FRAME_MS);
      this.recording.put('agent', from, window);
      this.agentActivity.add(from, window);
      if (this.openAgent && this.options.keepAgentAudio) this.openAgent.pcm.push(window);
      if (this.options.keepAgentAudio) {
        this.recent.push({ atMs: from, pcm: window });
        if (this.recent.length > RECENT_WINDOWS) this.recent.shift();
      }
      this.vad.push(window, from);
      this.agentReadMs += FRAME_MS;
    }
    if (this.agentTurnOpen && !this.agentBusy(now)) {
      this.agentTurnOpen = false;
      this.options.onAgentTurnEnd(now);
    }
  }

  /** How the agent's speech was found. */
  voiceActivity() {
    return this.vad.report();
  }

  /** Decided as the frames are read, or shortly after where a classifier judges them on its thread. */
  private onVoice(e: SpeechEvent): void {
    if (this.stopped) return;
    if (e.type === 'start') {
      // The detector confirms a span ~250 ms after its onset: that audio is already read, and kept.
      const since = this.recent.filter((w) => w.atMs + FRAME_MS > e.atMs).map((w) => w.pcm);
      this.openAgent = { start: e.atMs, end: e.atMs, pcm: since };
      this.agentTurnOpen = true;
    } else if (this.openAgent) {
      this.openAgent.end = e.atMs;
      this.agentSpeech.push(this.openAgent);
      this.openAgent = null;
    }
  }

  /** Stops the frames; a span still open (the call ended mid-sentence) closes where it got to. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.endedAtMs = this.nowMs();
    this.pacer?.stop();
    this.vad.close();
    if (this.openAgent) {
      this.openAgent.end = Math.max(this.openAgent.start, this.agentReadMs);
      this.agentSpeech.push(this.openAgent);
      this.openAgent = null;
    }
    const s = this.speaking;
    if (s && s.startMs >= 0)
      this.callerSpeech.push({
        start: s.startMs + s.u.speechFromMs + s.shiftMs,
        end: s.startMs + s.shiftMs + Math.min(s.u.speechToMs, (s.pos / this.rate) * 1000),
        utterance: s.u,
      });
    this.speaking = null;
  }

  /** The call's own length so far, connect to hang-up: ms on its clock (where `stop` left it). */
  get durationMs(): number {
    return this.endedAtMs ?? this.nowMs();
  }

  pacing() {
    return this.pacer?.stats() ?? { frames: 0, lateP50Ms: 0, lateP99Ms: 0, lateMaxMs: 0 };
  }
}
