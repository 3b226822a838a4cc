/**
 * The "voice brain" every fake voice agent shares, whatever protocol carries it: it hears the
 * caller's frames, finds their speech (SpeechDetector for utterances, and the exact last sample
 * of speech for timing), and answers with real synthesized speech after a configured delay, in
 * real time (paced 20 ms frames) or in a burst. It records the truth on its own clock
 * (performance.now()) so tests can check what Callbench measures against what happened.
 *
 * It also keeps the caller's audio clock: where each caller sample sits in the caller's audio,
 * counted in samples received. Callbench times the caller's speech on that clock, and so does
 * this agent's hearing (its speech detector, its barge-in rule), as an agent's VAD counts audio
 * rather than arrivals: on a busy machine frames come in bursts after a stall, still 20 ms apart
 * in the audio. Timing tests compare on that clock (`callerClockMs`), not on arrival times.
 */
import { durationMs, samplesPerFrame } from '../../src/audio/pcm.js';
import { startPacer } from '../../src/audio/pacer.js';
import { SpeechDetector } from '../../src/audio/vad.js';
import type { JsonObject } from './json.js';
import { speak, speechBounds } from './fake-voice-speech.js';

export interface BrainOptions {
  /** Spoken as soon as the call is up; null or absent: the agent waits for the caller. */
  firstMessage?: string | null;
  /** The agent's answers, cycled. */
  replies?: string[];
  /** Answer this long after the caller's last speech sample reached the fake (default 500). */
  delayMs?: number;
  /** Answer this long after the caller STARTS speaking, while they still speak (a talk-over). */
  talkOverAfterMs?: number;
  /** After this many answers the agent goes silent (it still listens). */
  silentAfterTurns?: number;
  /** Hang up once the answer number N has played out. */
  hangupAfterTurns?: number;
  /** Send each answer at once (faster than real time) instead of in paced 20 ms frames. */
  burst?: boolean;
  /**
   * Paced answers run this far ahead of real time (default 0: each frame when it is due), as
   * agents that buffer their speech ahead do: a stall of this process shorter than the lead
   * leaves no gap in what the caller's side plays. A barge-in's `clear` voids what is ahead.
   */
  leadMs?: number;
  /** Kill the socket abruptly this long after the call started. */
  dropAfterMs?: number;
  /** What the agent "heard" of the caller's utterance n (default `[caller speech n]`). */
  heardTexts?: string[];
  /** Caller speech over the agent for this long stops the agent (default 300; null: never). */
  bargeInMs?: number | null;
  /** ElevenLabs only: ask the caller to run a client tool right after the conversation starts. */
  clientToolCall?: boolean;
  /**
   * The caller says nothing this long after an answer played out: the agent re-prompts, once (it
   * then waits for the caller, however long its silence).
   */
  repromptAfterMs?: number;
  /** What the agent says to re-prompt (default "Are you still there?"). */
  reprompt?: string;
  /**
   * The level (dBFS) at which the agent hears the caller, for callers over background noise: its
   * detector's threshold, and the sample level its timing counts as speech (default about -50).
   */
  hearingDbfs?: number;
}

export interface FakeTurn {
  text: string;
  /** When the caller's last speech sample reached the fake; null for a talk-over answer. */
  callerEndMs: number | null;
  /** That sample's place on the caller's audio clock (see `callerClockMs`); null likewise. */
  callerEndAudioMs: number | null;
  callerStartMs: number | null;
  /** When the answer's first sample (speech) was handed to the socket. */
  agentStartMs: number;
  talkOver: boolean;
  interrupted: boolean;
  /** When the agent stopped for a barge-in (its audio's last frame handed over). */
  stoppedAtMs?: number;
}

export type FakeProtocol = 'vapi' | 'elevenlabs' | 'bland' | 'twilio';

export interface FakeBrainRecord {
  protocol: FakeProtocol;
  connectedAtMs: number;
  callerFrames: number;
  /** Caller samples received so far: the caller's audio clock, at the line's rate. */
  callerSamples: number;
  /**
   * When (performance.now()) the caller's first sample was due: the caller's audio clock set on
   * this process's. Frames arrive late under load, never early, so the least delayed one's
   * arrival less its place in the audio gives it, to a socket hop.
   */
  callerClockZeroMs: number;
  /** Caller utterances heard, with what the fake says it heard, at their start. */
  heard: { text: string; atMs: number }[];
  /** Everything the agent started saying (the first message too). */
  said: { text: string; atMs: number }[];
  firstMessageStartMs: number | null;
  turns: FakeTurn[];
  interruptions: number;
  endedBy: 'caller' | 'agent' | 'drop' | null;
  /** When (performance.now()) the agent hung up; null while it has not. */
  hungUpAtMs: number | null;
  /** What the caller's side sent to set the call up (Vapi create body, ElevenLabs init, Twilio start). */
  init: JsonObject | null;
  marksSent: { name: string; atMs: number }[];
  marksEchoed: { name: string; atMs: number }[];
  pongs: number;
  /** Every other control message the caller's side sent (hang-ups, stops, tool results). */
  clientMessages: JsonObject[];
  /**
   * Each barge-in the agent stopped for: where the caller's speech over it began on the caller's
   * audio clock, and when (performance.now()) the agent stopped.
   */
  bargeIns: { callerStartAudioMs: number; stoppedAtMs: number }[];
  /** When the agent re-prompted a silent caller. */
  reprompts: number[];
  /** Every caller frame as it arrived (tests look for keypad tones in them). */
  callerAudio: Int16Array[];
}

/** What a protocol fake does with what the brain decides. */
export interface BrainLink {
  rate: number;
  audio(pcm: Int16Array): void;
  replyStarted?(text: string): void;
  /** The last chunk of an answer was sent (a Twilio/Bland mark follows it). */
  replyEnded?(): void;
  /** The caller barged in: the agent stopped, its unplayed audio is void. */
  interrupted(): void;
  heard?(text: string): void;
  hangup(): void;
  drop(): void;
}

export const DEFAULT_REPLIES = ['Sure, I can help you with that today.'];
export const DEFAULT_REPROMPT = 'Are you still there?';
const BARGE_IN_MS = 300;
/** A pause shorter than this is still one stretch of the caller's speech. */
const SPEECH_GAP_MS = 150;

export function newBrainRecord(protocol: FakeProtocol): FakeBrainRecord {
  return {
    protocol,
    connectedAtMs: performance.now(),
    callerFrames: 0,
    callerSamples: 0,
    callerClockZeroMs: Infinity,
    heard: [],
    said: [],
    firstMessageStartMs: null,
    turns: [],
    interruptions: 0,
    endedBy: null,
    hungUpAtMs: null,
    init: null,
    marksSent: [],
    marksEchoed: [],
    pongs: 0,
    clientMessages: [],
    bargeIns: [],
    reprompts: [],
    callerAudio: [],
  };
}

/**
 * A moment of this process's clock (performance.now()) on the caller's audio clock: ms since the
 * caller's first sample was due, the clock Callbench keeps the call on.
 */
export function callerClockMs(record: FakeBrainRecord, atMs: number): number {
  return atMs - record.callerClockZeroMs;
}

/** Every line a brain may say, synthesized ahead at each rate, so answers are never late. */
export async function prepareSpeech(options: BrainOptions, rates: number[]): Promise<void> {
  const lines = [
    ...(options.replies ?? DEFAULT_REPLIES),
    options.firstMessage ?? null,
    options.repromptAfterMs === undefined ? null : (options.reprompt ?? DEFAULT_REPROMPT),
  ];
  await Promise.all(
    rates.flatMap((rate) => lines.filter((l): l is string => !!l).map((l) => speak(l, rate))),
  );
}

interface Reply {
  turn: FakeTurn | null;
  until: number;
  stop(): void;
  /** Where the caller's speech over this reply began with no pause since (caller's audio clock). */
  bargeSince: number | null;
  /** The caller's first sound over this reply, on the caller's audio clock (a barge-in's start). */
  heardFrom: number | null;
}

export class VoiceBrain {
  private readonly detector: SpeechDetector;
  private readonly timers = new Set<NodeJS.Timeout>();
  private lastLoudMs = 0;
  /** The caller's last speech sample on the caller's audio clock. */
  private lastLoudAudioMs = 0;
  private loudFrameAt = -Infinity;
  /** Where the caller's last frame with speech starts on the caller's audio clock. */
  private loudFrameAudioAt = -Infinity;
  private utterance: { startMs: number; answered: boolean; closed: boolean } | null = null;
  private replyTimer: NodeJS.Timeout | null = null;
  private reply: Reply | null = null;
  /** The reply being said is a re-prompt: once it has played, no other follows it. */
  private reprompting = false;
  private over = false;
  /** The sample level counted as the caller's speech (undefined: the default). */
  private readonly loudLevel: number | undefined;

  constructor(
    private readonly options: BrainOptions,
    private readonly link: BrainLink,
    readonly record: FakeBrainRecord,
  ) {
    const { hearingDbfs } = options;
    this.detector = new SpeechDetector(link.rate, {
      endMs: 600,
      ...(hearingDbfs === undefined ? {} : { thresholdDbfs: hearingDbfs }),
    });
    this.loudLevel = hearingDbfs === undefined ? undefined : 32768 * 10 ** (hearingDbfs / 20);
  }

  /** The call is up: the first message, and the drop if one is planned. */
  start(): void {
    const { dropAfterMs, firstMessage } = this.options;
    if (dropAfterMs !== undefined)
      this.after(dropAfterMs, () => {
        this.record.endedBy = 'drop';
        this.stop();
        this.link.drop();
      });
    if (firstMessage) void this.say(firstMessage, null);
  }

  /** One frame of the caller, as it arrived. */
  feed(frame: Int16Array): void {
    if (this.over) return;
    const now = performance.now();
    const atAudioMs = this.onCallerClock(frame, now);
    this.record.callerFrames++;
    this.record.callerAudio.push(frame.slice());
    const [first, end] = speechBounds(frame, this.loudLevel);
    const ms = (samples: number) => (samples * 1000) / this.link.rate;
    if (end > 0) {
      this.lastLoudMs = now + ms(end);
      this.lastLoudAudioMs = atAudioMs + ms(end);
    }
    // Heard on the audio's clock: a burst after a stall is not one instant of sound.
    for (const event of this.detector.feed(frame, atAudioMs)) {
      if (event.type === 'start') this.utteranceStarted(event.atMs + this.record.callerClockZeroMs);
      else this.utteranceEnded();
    }
    if (end > 0) this.callerSpoke(now, { frameAt: atAudioMs, onsetAt: atAudioMs + ms(first) });
  }

  /** Where `frame` starts on the caller's audio clock; sets that clock on this process's. */
  private onCallerClock(frame: Int16Array, now: number): number {
    const r = this.record;
    const atAudioMs = (r.callerSamples * 1000) / this.link.rate;
    r.callerSamples += frame.length;
    r.callerClockZeroMs = Math.min(r.callerClockZeroMs, now - atAudioMs);
    return atAudioMs;
  }

  /** The call is over: nothing more is said or scheduled. */
  stop(): void {
    this.over = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.reply?.stop();
    this.reply = null;
  }

  private after(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!this.over) fn();
      },
      Math.max(0, ms),
    );
    this.timers.add(timer);
    return timer;
  }

  private utteranceStarted(startMs: number): void {
    this.utterance = { startMs, answered: false, closed: false };
    const { talkOverAfterMs } = this.options;
    if (talkOverAfterMs === undefined) return;
    this.utterance.answered = true;
    this.after(startMs + talkOverAfterMs - performance.now(), () =>
      this.answer({ callerEndMs: null, callerEndAudioMs: null, talkOver: true }),
    );
  }

  private utteranceEnded(): void {
    this.closeUtterance();
  }

  private closeUtterance(): void {
    const u = this.utterance;
    if (!u || u.closed) return;
    u.closed = true;
    const n = this.record.heard.length;
    const text = this.options.heardTexts?.[n] ?? `[caller speech ${n + 1}]`;
    this.record.heard.push({ text, atMs: u.startMs });
    this.link.heard?.(text);
  }

  /**
   * A frame with speech (`frameAt`, its first loud sample `onsetAt`, on the caller's audio clock):
   * the caller may be barging in, and the answer waits for them to stop.
   */
  private callerSpoke(now: number, audio: { frameAt: number; onsetAt: number }): void {
    this.watchBargeIn(audio);
    this.loudFrameAt = now;
    this.loudFrameAudioAt = audio.frameAt;
    const u = this.utterance;
    if (!u || u.answered) return;
    if (this.replyTimer) clearTimeout(this.replyTimer);
    const callerEndMs = this.lastLoudMs;
    const callerEndAudioMs = this.lastLoudAudioMs;
    const wait = callerEndMs + (this.options.delayMs ?? 500) - performance.now();
    this.replyTimer = this.after(wait, () =>
      this.answer({ callerEndMs, callerEndAudioMs, talkOver: false }),
    );
  }

  /**
   * Stops for caller speech over the reply that lasts `bargeInMs` without a pause, counted on the
   * caller's audio clock: frames that arrive together after a stall are no pause, nor one instant.
   */
  private watchBargeIn({ frameAt, onsetAt }: { frameAt: number; onsetAt: number }): void {
    const reply = this.reply;
    const limit = this.options.bargeInMs === undefined ? BARGE_IN_MS : this.options.bargeInMs;
    if (!reply || limit === null || reply.turn?.talkOver) return;
    // The reply plays until `until` (this process's clock): speech due after it is no barge-in.
    if (frameAt + this.record.callerClockZeroMs >= reply.until) return;
    reply.heardFrom ??= onsetAt;
    if (reply.bargeSince === null || frameAt - this.loudFrameAudioAt > SPEECH_GAP_MS)
      reply.bargeSince = frameAt;
    else if (frameAt - reply.bargeSince >= limit) this.interrupt(reply);
  }

  private interrupt(reply: Reply): void {
    reply.stop();
    this.reply = null;
    this.reprompting = false;
    this.record.interruptions++;
    const stoppedAtMs = performance.now();
    if (reply.turn) {
      reply.turn.interrupted = true;
      reply.turn.stoppedAtMs = stoppedAtMs;
    }
    const callerStartAudioMs = reply.heardFrom ?? callerClockMs(this.record, stoppedAtMs);
    this.record.bargeIns.push({ callerStartAudioMs, stoppedAtMs });
    this.link.interrupted();
  }

  private answer(how: {
    callerEndMs: number | null;
    callerEndAudioMs: number | null;
    talkOver: boolean;
  }): void {
    // Still talking: what the caller said meanwhile is taken as a backchannel.
    if (this.reply) return;
    const u = this.utterance;
    if (u) u.answered = true;
    this.closeUtterance();
    const n = this.record.turns.length;
    const { silentAfterTurns } = this.options;
    if (silentAfterTurns !== undefined && n >= silentAfterTurns) return;
    const replies = this.options.replies ?? DEFAULT_REPLIES;
    const text = replies[n % replies.length]!;
    const turn: FakeTurn = {
      text,
      callerEndMs: how.callerEndMs,
      callerEndAudioMs: how.callerEndAudioMs,
      callerStartMs: u?.startMs ?? null,
      agentStartMs: Number.NaN,
      talkOver: how.talkOver,
      interrupted: false,
    };
    this.record.turns.push(turn);
    void this.say(text, turn);
  }

  /** Re-prompts once the caller has said nothing for `repromptAfterMs` after the agent finished. */
  private watchSilence(): void {
    const { repromptAfterMs } = this.options;
    if (repromptAfterMs === undefined) return;
    const quietSince = performance.now();
    this.after(repromptAfterMs, () => {
      if (this.reply || this.loudFrameAt > quietSince) return;
      this.record.reprompts.push(performance.now());
      this.reprompting = true;
      void this.say(this.options.reprompt ?? DEFAULT_REPROMPT, null);
    });
  }

  /** Speaks `text`: paced 20 ms frames, or everything at once in a burst. */
  private async say(text: string, turn: FakeTurn | null): Promise<void> {
    const pcm = await speak(text, this.link.rate); // prepared ahead: already settled
    if (this.over) return;
    const reply: Reply = {
      turn,
      until: Infinity,
      stop: () => undefined,
      bargeSince: null,
      heardFrom: null,
    };
    this.reply = reply;
    const started = () => {
      const at = performance.now();
      if (turn) turn.agentStartMs = at;
      else this.record.firstMessageStartMs = at;
      this.record.said.push({ text, atMs: at });
      reply.until = at + durationMs(pcm.length, this.link.rate);
      this.link.replyStarted?.(text);
    };
    const finished = () => {
      this.link.replyEnded?.();
      this.after(reply.until - performance.now(), () => this.played(reply));
    };
    const frame = samplesPerFrame(this.link.rate);
    if (this.options.burst) {
      started();
      for (let i = 0; i < pcm.length; i += frame * 5)
        this.link.audio(pcm.subarray(i, i + frame * 5));
      return finished();
    }
    // Frames handed over by the pacer's frame i: those due by then, and the lead's worth more.
    const ahead = Math.round((this.options.leadMs ?? 0) / 20);
    let sent = 0;
    const pacer = startPacer({
      frameMs: 20,
      onFrame: (i) => {
        if (i === 0) started();
        for (; sent <= i + ahead && sent * frame < pcm.length; sent++)
          this.link.audio(pcm.subarray(sent * frame, (sent + 1) * frame));
        if (sent * frame < pcm.length) return;
        pacer.stop();
        finished();
      },
    });
    reply.stop = () => pacer.stop();
  }

  /** An answer played out to its end: the agent may hang up now, or re-prompt a silent caller. */
  private played(reply: Reply): void {
    if (this.reply !== reply) return;
    this.reply = null;
    if (!this.reprompting) this.watchSilence();
    this.reprompting = false;
    const { hangupAfterTurns } = this.options;
    if (!reply.turn || hangupAfterTurns === undefined) return;
    if (this.record.turns.length < hangupAfterTurns) return;
    this.after(300, () => {
      this.record.endedBy = 'agent';
      this.record.hungUpAtMs = performance.now();
      this.stop();
      this.link.hangup();
    });
  }
}
