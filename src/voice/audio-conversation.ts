import { concatPcm, resampleInSlices } from '../audio/pcm.js';
import { DEFAULT_VOICE, type AudioSummary, type PersonaVoice } from '../domain/audio.js';
import type { Speech } from '../speech/index.js';
import { fill } from '../simulations/caller.js';
import {
  Interrupted,
  makeCaller,
  type ConversationOutcome,
  type ConversationSetup,
} from '../simulations/conversation.js';
import type { EndReason } from '../simulations/scoring.js';
import { measureCall } from './call-measures.js';
import { CallInbox, LiveCall, spoken, type CallEnd, type Utterance } from './live-call.js';
import { assembleTurns } from './call-turns.js';
import type { AudioCall, Dial, DialRequest } from './transport.js';

/** What an audio simulation needs beyond a text one: the line to the agent, and a voice. */
export interface AudioConversationSetup extends Omit<ConversationSetup, 'agent'> {
  transport: string;
  dial: Dial;
  /** The PCM rate the transport's calls run at: lines are converted to it before dialling. */
  lineRate: number;
  request: Omit<DialRequest, 'events' | 'signal'>;
  speech: Speech;
  voice: PersonaVoice | null;
  /** No one speaks this long: the call ends (`silence`). */
  silenceLimitMs?: number;
  /** The agent says nothing this long after connecting: the caller speaks first. */
  callerOpensAfterMs?: number;
}

export interface AudioOutcome extends ConversationOutcome {
  cancelled?: true;
  /** The call failed mid-way (a drop, a speech engine error): turns and audio so far are kept. */
  failure: string | null;
  audio: AudioSummary;
  wav: Buffer;
}

/** The pause before the caller answers, after the agent's turn is heard to end: impatient callers answer fast. */
const PAUSE_MS: Record<string, number> = { easy: 500, medium: 350, hard: 200, very_hard: 100 };

type Phase = 'opening' | 'agent' | 'preparing' | 'speaking' | 'waiting' | 'closing' | 'done';

type Ending =
  { reason: EndReason } | { cancelled: true } | { failure: string } | { interrupted: true };

/**
 * One simulated audio call: the caller's lines are voiced (scripted ones before dialling, so
 * synthesis never counts as the agent's latency), spoken on the live call at real-time pace, and
 * the agent's answers measured from its audio. Ends when the agent hangs up, the caller is done,
 * a limit is reached, or the line drops.
 */
export async function converseByAudio(setup: AudioConversationSetup): Promise<AudioOutcome> {
  const voice = setup.voice ?? DEFAULT_VOICE;
  const script = setup.scenario.script;
  // Every scripted line voiced (at the line's rate) before the call, so that neither synthesis
  // nor conversion counts as the agent's latency or delays the first frame; a synthesis failure
  // fails here, with nothing dialled.
  const voiced = script
    ? await inTurns(script, async (l) => {
        const v = await setup.speech.synthesize(fill(l.say, setup.variables), voice, setup.signal);
        return atRate(v.pcm, setup.lineRate, setup.signal);
      })
    : null;
  const inbox = new CallInbox();
  const call = await setup.dial({
    ...setup.request,
    events: inbox,
    signal: setup.signal ?? new AbortController().signal,
  });
  try {
    // A transport that took another rate than it said: converted now (the first frame waits).
    const lines =
      voiced && call.sampleRate !== setup.lineRate
        ? await inTurns(voiced, (v) => resampleInSlices(v, setup.lineRate, call.sampleRate))
        : voiced;
    return await new CallDriver(setup, call, inbox, lines).run();
  } catch (err) {
    await call.hangup().catch(() => {});
    throw err;
  }
}

/** Voices at most this many lines at once (each holds an abort listener and a voice process). */
const AT_ONCE = 4;

/** `work` on each item, a few at a time; answers in order. */
async function inTurns<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
  return out;
}

/** 16 kHz speech at the call's rate, converted a slice at a time. */
const atRate = (pcm16k: Int16Array, rate: number, signal?: AbortSignal) =>
  resampleInSlices(pcm16k, 16_000, rate, signal);

class CallDriver {
  private readonly live: LiveCall;
  private readonly caller: ReturnType<typeof makeCaller>;
  private phase: Phase = 'opening';
  private replies = 0;
  private lastActivityMs = 0;
  private readyAtMs = 0;
  private prepared: { utterance: Utterance | null; ended: boolean } | null = null;
  private thinkMs = 0;
  private finalLine = false;
  private scriptIndex = 0;
  private settle: ((e: Ending) => void) | null = null;
  private ending: Ending | null = null;
  private readonly sttNeeded: boolean;

  constructor(
    private readonly setup: AudioConversationSetup,
    private readonly call: AudioCall,
    private readonly inbox: CallInbox,
    private readonly scriptAudio: Int16Array[] | null,
  ) {
    this.caller = makeCaller(setup);
    // The model caller must hear the agent during the call: where the line carries no text, STT.
    this.sttNeeded =
      call.agentTextSource === 'stt' ||
      (call.agentTextSource === 'provider_record' && !scriptAudio);
    this.live = new LiveCall(call, {
      maxMs: setup.limits.maxDurationMs + 10_000,
      keepAgentAudio: this.sttNeeded,
      onFrame: (now) => this.onFrame(now),
      onAgentTurnEnd: (now) => this.onAgentTurnEnd(now),
      onEnded: (end) => this.onFarEnd(end),
    });
  }

  async run(): Promise<AudioOutcome> {
    const ended = new Promise<Ending>((resolve) => (this.settle = resolve));
    this.inbox.onEnd = (end) => this.onFarEnd(end);
    this.live.start();
    this.inbox.attach(this.live);
    if (this.inbox.endedAs) this.onFarEnd(this.inbox.endedAs);
    const ending = await ended;
    this.live.stop();
    await this.call.hangup().catch(() => {});
    if ('interrupted' in ending) throw new Interrupted('the engine is stopping');
    return this.outcome(ending);
  }

  private finish(e: Ending): void {
    if (this.ending) return;
    this.ending = e;
    this.phase = 'done';
    this.settle?.(e);
  }

  private onFarEnd(end: CallEnd): void {
    if (end.how === 'agent_hangup') this.finish({ reason: 'agent_ended' });
    else if (end.how === 'dropped')
      this.finish({ failure: `the ${this.setup.transport} call dropped: ${end.detail}` });
  }

  private onFrame(now: number): void {
    if (this.phase === 'done') return;
    const stop = this.setup.shouldStop();
    if (stop === 'interrupt') return this.finish({ interrupted: true });
    if (stop === 'cancel') return this.finish({ cancelled: true });
    if (now >= this.setup.limits.maxDurationMs) return this.finish({ reason: 'max_duration' });
    const busy = this.live.agentBusy(now) || !this.live.callerIdle;
    if (busy || this.phase === 'preparing') this.lastActivityMs = now;
    if (now - this.lastActivityMs > (this.setup.silenceLimitMs ?? 15_000))
      return this.finish({ reason: 'silence' });
    this.advance(now);
  }

  /** Moves the turn-taking on by what this frame showed. */
  private advance(now: number): void {
    switch (this.phase) {
      case 'opening':
        if (this.live.agentBusy(now)) this.phase = 'agent';
        else if (now >= (this.setup.callerOpensAfterMs ?? 3_000)) this.prepare(now, 0);
        return;
      case 'preparing':
        if (this.prepared && now >= this.readyAtMs) this.speak();
        return;
      case 'speaking':
        if (!this.live.callerIdle) return;
        this.phase = this.finalLine ? 'closing' : 'waiting';
        this.readyAtMs = now + 5_000; // a goodbye gets this long for an answer
        return;
      case 'waiting':
        if (this.live.agentBusy(now)) this.phase = 'agent';
        return;
      case 'closing':
        if (now >= this.readyAtMs && !this.live.agentBusy(now))
          this.finish({ reason: 'caller_ended' });
        return;
      default:
        return;
    }
  }

  private onAgentTurnEnd(now: number): void {
    if (this.phase === 'done' || this.phase === 'speaking' || this.phase === 'preparing') return;
    this.replies++;
    if (this.phase === 'closing') return this.finish({ reason: 'caller_ended' });
    if (this.replies >= this.setup.limits.maxTurns) return this.finish({ reason: 'max_turns' });
    this.prepare(now, PAUSE_MS[this.setup.persona.difficulty] ?? PAUSE_MS.medium!);
  }

  /** The caller's next line, voiced while silence keeps streaming. */
  private prepare(now: number, pauseMs: number): void {
    this.phase = 'preparing';
    this.prepared = null;
    this.readyAtMs = now + pauseMs;
    const began = this.live.nowMs();
    this.nextLine().then(
      (next) => {
        // Time past the pause that the caller spent writing and voicing: the caller's, not the agent's.
        this.thinkMs += Math.max(0, this.live.nowMs() - began - pauseMs);
        this.prepared = next;
      },
      (err: unknown) => this.finish({ failure: (err as Error).message }),
    );
  }

  private async nextLine(): Promise<{ utterance: Utterance | null; ended: boolean }> {
    if (this.scriptAudio) {
      const i = this.scriptIndex++;
      const line = this.setup.scenario.script![i];
      if (!line) return { utterance: null, ended: true };
      const text = fill(line.say, this.setup.variables);
      const utterance = spoken(this.scriptAudio[i]!, this.live.rate, { text, source: 'script' });
      return { utterance: { ...utterance, expect: line.expect }, ended: false };
    }
    if (this.replies > 0 || this.live.agentSpeech.length > 0)
      this.caller.heard(await this.agentWordsSoFar());
    const said = await this.caller.next();
    if (!said.text) return { utterance: null, ended: said.ended };
    const voiced = await this.setup.speech.synthesize(
      said.text,
      this.setup.voice ?? DEFAULT_VOICE,
      this.setup.signal,
    );
    const pcm = await atRate(voiced.pcm, this.live.rate, this.setup.signal);
    const utterance = spoken(pcm, this.live.rate, { text: said.text, source: 'model' });
    return { utterance, ended: said.ended };
  }

  private heardUpTo = 0;
  private agentTextUpTo = 0;

  /** What the agent said since the caller last spoke: its text events, else speech-to-text of its audio. */
  private async agentWordsSoFar(): Promise<string> {
    if (!this.sttNeeded) {
      const texts = this.inbox.agentTexts.slice(this.agentTextUpTo);
      this.agentTextUpTo = this.inbox.agentTexts.length;
      return texts.map((t) => t.text).join(' ');
    }
    const spans = this.live.agentSpeech.slice(this.heardUpTo);
    this.heardUpTo = this.live.agentSpeech.length;
    const joined = concatPcm(spans.flatMap((s) => s.pcm));
    const text = await this.setup.speech.transcribe(joined, this.live.rate, this.setup.signal);
    spans.forEach((s, i) => (s.transcript = i === 0 ? text : ''));
    return text;
  }

  private speak(): void {
    const next = this.prepared!;
    this.prepared = null;
    if (!next.utterance) return this.finish({ reason: 'caller_ended' });
    this.finalLine = next.ended;
    this.live.say(next.utterance);
    this.phase = 'speaking';
  }

  private async outcome(ending: Exclude<Ending, { interrupted: true }>): Promise<AudioOutcome> {
    const { live, call } = this;
    // Calls often end together (a time limit): each one's summing-up takes its own turn of the
    // event loop, so the calls still live keep their frames on time.
    await yieldTurn();
    const measures = measureCall(live.callerSpeech, live.agentSpeech);
    const providerTranscript = await call.providerTranscript().catch(() => null);
    const assembled = await assembleTurns({
      caller: live.callerSpeech,
      agent: live.agentSpeech,
      measures,
      inbox: this.inbox,
      source: call.agentTextSource,
      providerTranscript,
      transcribe: (pcm) => this.setup.speech.transcribe(pcm, live.rate, this.setup.signal),
    });
    const pacing = live.pacing();
    const audio: AudioSummary = {
      transport: this.setup.transport,
      call_id: call.callId,
      sample_rate: live.rate,
      time_to_first_audio_ms: measures.timeToFirstAudioMs,
      response_latency_ms: measures.responseLatency,
      talk_over: { count: measures.talkOver.count, total_ms: measures.talkOver.totalMs },
      long_silences: measures.longSilences,
      agent_speech_ms: measures.agentSpeechMs,
      caller_speech_ms: measures.callerSpeechMs,
      talk_ratio: measures.talkRatio,
      caller_think_ms: Math.round(this.thinkMs),
      pacing: {
        frames: pacing.frames,
        late_p50_ms: round1(pacing.lateP50Ms),
        late_p99_ms: round1(pacing.lateP99Ms),
        late_max_ms: round1(pacing.lateMaxMs),
      },
      agent_text_source: call.agentTextSource,
      provider_transcript:
        providerTranscript?.map((t) => ({ role: t.role, text: t.text, at_ms: t.atMs })) ?? null,
      recording: true,
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
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
