import { concatPcm } from '../audio/pcm.js';
import type { ScriptLine } from '../domain/scenarios.js';
import { Interrupted, makeCaller } from '../conversation/conversation.js';
import type { CallerDice, OverAgent } from './caller-dice.js';
import { asAct, voiceText, type LineVoicing } from './caller-lines.js';
import type { CallSession, CallStart } from './call-session.js';
import { spoken, type CallEnd, type Utterance } from './live-call.js';
import type { AudioConversationSetup, CallerLog, Ending } from './types.js';

/**
 * The turn-taking of one audio call: when the caller speaks, stays silent, talks over the agent,
 * sends digits or hangs up, from what the live call hears. What to say comes from the script
 * (voiced before dialling) or the caller model (voiced while silence streams).
 */

type Phase =
  | 'opening'
  | 'agent'
  | 'preparing'
  | 'speaking'
  | 'over_agent'
  | 'silent'
  | 'waiting'
  | 'closing'
  | 'done';

/** A line (or a hang-up) waiting for the agent to have spoken long enough in its turn. */
interface Armed {
  over: OverAgent;
  /** The line to say; null: the caller model writes it when the moment comes. */
  utterance: Utterance | null;
  /** Scripted: the line's index, consumed when it is said. */
  scriptIndex: number | null;
}

export interface DriverParts {
  setup: AudioConversationSetup;
  /** The call, its frames on an audio thread or this one. */
  session: CallSession;
  /** How its clock's part is made once it is up. */
  start: CallStart;
  /** Scripted lines as they will be said (null entries say nothing); null for a model caller. */
  script: (Utterance | null)[] | null;
  dice: CallerDice;
  voicing: LineVoicing;
  /** The persona's backchannels, voiced before dialling. */
  backchannels: Utterance[];
  pauseMs: number;
  sttNeeded: boolean;
}

export class CallDriver {
  private readonly setup: AudioConversationSetup;
  private readonly live: CallSession;
  private readonly caller: ReturnType<typeof makeCaller>;
  private phase: Phase = 'opening';
  private replies = 0;
  private lastActivityMs = 0;
  private readyAtMs = 0;
  private prepared: { utterance: Utterance | null; ended: boolean; hangup?: boolean } | null = null;
  private thinkMs = 0;
  /** Each line's think time, and when (call's clock) the line was ready. */
  private readonly thinkSpans: { readyAtMs: number; ms: number }[] = [];
  private finalLine = false;
  private hangupAfterLine = false;
  private scriptIndex = 0;
  private armed: Armed | null = null;
  /** The model caller is writing a line to say over the agent (a barge-in by chance). */
  private cuttingIn = false;
  /** The silence before the caller's current answer has been kept (or the agent broke it). */
  private silenceKept = false;
  private silentUntilMs = 0;
  /**
   * The caller is in a silence it keeps on purpose, until `silentUntilMs`: the agent may speak
   * into it (a re-prompt), and the caller keeps silent to its end all the same.
   */
  private inSilence = false;
  /** Where the caller goes once its line over the agent is said. */
  private afterOverAgent: Phase = 'waiting';
  /**
   * A barge-in is said while the agent's turn it cut into is still open: where the line ended.
   * The agent may have stopped under it, its end confirmed only a hangover (and a busy thread's
   * lateness) later; that open turn is not a new one the caller could cut into again.
   */
  private cutInto: { lineEndMs: number } | null = null;
  private settle: ((e: Ending) => void) | null = null;
  private ending: Ending | null = null;
  readonly log: CallerLog = { silences: [], dtmf: [], hungUp: false };

  constructor(private readonly parts: DriverParts) {
    this.setup = parts.setup;
    this.live = parts.session;
    this.caller = makeCaller(parts.setup);
  }

  get callerThinkMs(): number {
    return this.thinkMs;
  }

  /**
   * The caller's think time (see `prepare`) that was over by `atMs`: the call's first `atMs` held
   * that much waiting on the caller model and its voice, which is never the agent's time.
   */
  thinkDoneBy(atMs: number): number {
    return this.thinkSpans.filter((t) => t.readyAtMs <= atMs).reduce((sum, t) => sum + t.ms, 0);
  }

  async run(): Promise<Exclude<Ending, { interrupted: true }>> {
    const ended = new Promise<Ending>((resolve) => (this.settle = resolve));
    this.live.start(
      {
        onFrame: (now) => this.onFrame(now),
        onAgentTurnEnd: (now) => this.onAgentTurnEnd(now),
        onEnded: (end) => this.onFarEnd(end),
      },
      this.parts.start,
    );
    const ending = await ended;
    await this.live.end();
    if ('interrupted' in ending) throw new Interrupted('the engine is stopping');
    return ending;
  }

  private finish(e: Ending): void {
    if (this.ending) return;
    this.ending = e;
    this.phase = 'done';
    this.settle?.(e);
  }

  onFarEnd(end: CallEnd): void {
    if (end.how === 'agent_hangup') this.finish({ reason: 'agent_ended' });
    else if (end.how === 'dropped')
      this.finish({ failure: `the ${this.setup.transport} call dropped: ${end.detail}` });
    else if (end.how === 'misbehaved') this.finish({ failure: end.detail });
  }

  onFrame(now: number): void {
    if (this.phase === 'done') return;
    const stop = this.setup.shouldStop();
    if (stop === 'interrupt') return this.finish({ interrupted: true });
    if (stop === 'cancel') return this.finish({ cancelled: true });
    if (now >= this.setup.limits.maxDurationMs) return this.finish({ reason: 'max_duration' });
    const busy = this.live.agentBusy(now) || !this.live.callerIdle;
    // A silence the caller keeps on purpose is not the call going quiet.
    if (busy || this.phase === 'preparing' || this.phase === 'silent') this.lastActivityMs = now;
    if (now - this.lastActivityMs > (this.setup.silenceLimitMs ?? 15_000))
      return this.finish({ reason: 'silence' });
    this.advance(now);
  }

  /** Moves the turn-taking on by what this frame showed. */
  private advance(now: number): void {
    switch (this.phase) {
      case 'opening':
        if (this.live.agentBusy(now)) this.agentTurnBegins();
        else if (now >= (this.setup.callerOpensAfterMs ?? 3_000)) this.prepare(now, 0);
        return;
      case 'agent':
        return this.maybeActOverAgent(now);
      case 'preparing':
        if (this.prepared && now >= this.readyAtMs) this.speak(now);
        return;
      case 'speaking':
        if (this.live.callerIdle) this.lineSaid(now);
        return;
      case 'over_agent':
        if (this.live.callerIdle) this.overAgentSaid(now);
        return;
      case 'silent':
        if (this.live.agentBusy(now)) this.agentTurnBegins();
        else if (now >= this.silentUntilMs) this.prepare(now, 0);
        return;
      case 'waiting':
        if (this.live.agentBusy(now) && !this.cutInto) this.agentTurnBegins();
        return;
      case 'closing':
        if (now >= this.readyAtMs && !this.live.agentBusy(now))
          this.finish({ reason: 'caller_ended' });
        return;
      default:
        return;
    }
  }

  /** The agent starts a turn: the caller may plan to talk over it, backchannel, or hang up. */
  private agentTurnBegins(): void {
    this.phase = 'agent';
    if (this.armed) return;
    const next = this.peekScript();
    if (next && (next.line.interrupt || next.line.backchannel)) return;
    const over = this.parts.dice.overAgentTurn();
    if (!over) return;
    if (over.kind === 'backchannel') {
      const utterance = asAct(this.parts.dice.pick(this.parts.backchannels), 'backchannel');
      this.armed = { over, utterance, scriptIndex: null };
    } else if (over.kind === 'barge_in' && next) {
      if (!next.utterance) return; // a line that only keeps silent or hangs up is not barged in with
      this.armed = { over, utterance: asAct(next.utterance, 'barge_in'), scriptIndex: next.index };
    } else this.armed = { over, utterance: null, scriptIndex: null };
  }

  /** Says an armed line (or hangs up) once the agent has spoken long enough in its turn. */
  private maybeActOverAgent(now: number): void {
    const armed = this.armed;
    if (!armed || !this.live.callerIdle) return;
    if (this.live.agentTurnSpokenMs(now) < armed.over.afterMs) return;
    this.armed = null;
    if (armed.over.kind === 'hangup') {
      this.log.hungUp = true;
      return this.finish({ reason: 'caller_ended', hungUp: true });
    }
    if (armed.scriptIndex !== null) this.scriptIndex = armed.scriptIndex + 1;
    if (!armed.utterance) {
      // The model caller cuts in: it writes its line from what it heard so far.
      this.cuttingIn = true;
      return this.prepare(now, 0, true);
    }
    this.sayOverAgent(armed.utterance, armed.scriptIndex);
  }

  private sayOverAgent(u: Utterance, scriptIndex: number | null): void {
    this.inSilence = false;
    this.live.say(u);
    this.afterOverAgent = u.act === 'backchannel' ? 'agent' : 'waiting';
    this.phase = 'over_agent';
    if (scriptIndex !== null) {
      const line = this.setup.scenario.script![scriptIndex]!;
      this.hangupAfterLine = line.hangup === true;
      this.finalLine = false;
    }
  }

  /** A barge-in or backchannel is said: the caller listens again. */
  private overAgentSaid(now: number): void {
    if (this.hangupAfterLine) return this.hangUp();
    this.phase = this.afterOverAgent === 'agent' ? 'agent' : this.finalLine ? 'closing' : 'waiting';
    this.readyAtMs = now + 5_000;
    if (this.phase === 'waiting' && this.live.agentBusy(now))
      this.cutInto = { lineEndMs: this.live.callerSpeech.at(-1)?.end ?? now };
    this.armNextScripted();
    // The agent went quiet while the caller spoke over it: its turn ended then.
    if (this.phase === 'agent' && !this.live.agentBusy(now)) this.onAgentTurnEnd(now);
  }

  onAgentTurnEnd(now: number): void {
    const underBargeIn = this.endedUnderBargeIn(now);
    const cutIn =
      underBargeIn ||
      (this.phase === 'over_agent' && this.afterOverAgent === 'waiting') ||
      (this.phase === 'preparing' && this.cuttingIn);
    if (!cutIn && this.phase !== 'agent' && this.phase !== 'waiting' && this.phase !== 'closing')
      return;
    this.replies++;
    this.armed = null;
    if (this.phase === 'closing') return this.finish({ reason: 'caller_ended' });
    if (this.replies >= this.setup.limits.maxTurns) return this.finish({ reason: 'max_turns' });
    // The agent's turn ended under the caller's barge-in: it was a reply all the same (the turn
    // limit counts it), and the caller carries on with its line, or waits for the answer to it.
    if (cutIn) return;
    if (this.inSilence) return this.keepSilence(now);
    const silenceMs = this.silenceBefore();
    if (silenceMs !== null) {
      // The silence runs from the agent's last sound, not from when its end was confirmed.
      const from = Math.min(now, this.live.agentSpeech.at(-1)?.end ?? now);
      this.phase = 'silent';
      this.inSilence = true;
      this.silentUntilMs = from + silenceMs;
      this.log.silences.push({ atMs: from, ms: silenceMs });
      return;
    }
    this.prepare(now, this.parts.pauseMs);
  }

  /**
   * The agent spoke into the caller's silence (a re-prompt) and is done: the silence is kept to
   * its end, as its script or dice said, and the line follows then; where the agent talked past
   * that end, the caller answers as soon as it is done, its pause spent in the silence.
   */
  private keepSilence(now: number): void {
    if (now < this.silentUntilMs) {
      this.phase = 'silent';
      return;
    }
    this.prepare(now, 0);
  }

  /**
   * The turn a barge-in cut into ended: whether the agent's speech ended while the line was said
   * (it stopped for it), however late that end was confirmed. Talking on past the line, the agent
   * kept its turn, and the caller answers it.
   */
  private endedUnderBargeIn(now: number): boolean {
    const cutInto = this.cutInto;
    this.cutInto = null;
    if (!cutInto || this.phase !== 'waiting') return false;
    return (this.live.agentSpeech.at(-1)?.end ?? now) <= cutInto.lineEndMs;
  }

  /** How long the caller keeps silent before answering now, if it does. */
  private silenceBefore(): number | null {
    if (this.silenceKept) {
      this.silenceKept = false;
      return null;
    }
    const next = this.peekScript();
    const ms = next?.line.silence?.ms ?? this.parts.dice.silenceBeforeAnswer();
    if (ms !== null) this.silenceKept = true;
    return ms;
  }

  /** The next scripted line and its audio, not yet consumed. */
  private peekScript(): { line: ScriptLine; utterance: Utterance | null; index: number } | null {
    const script = this.parts.script;
    const line = this.setup.scenario.script?.[this.scriptIndex];
    if (!script || !line) return null;
    return { line, utterance: script[this.scriptIndex] ?? null, index: this.scriptIndex };
  }

  /** A scripted barge-in or backchannel next: armed for the agent's coming turn. */
  private armNextScripted(): void {
    const next = this.peekScript();
    const act = next?.line.interrupt ?? next?.line.backchannel;
    if (!next || !act || !next.utterance) return;
    const kind = next.line.interrupt ? 'barge_in' : 'backchannel';
    this.armed = {
      over: { kind, afterMs: act.afterMs },
      utterance: asAct(next.utterance, kind),
      scriptIndex: next.index,
    };
  }

  /** The caller's next line, written and voiced while silence keeps streaming. */
  private prepare(now: number, pauseMs: number, overAgent = false): void {
    this.inSilence = false;
    this.phase = 'preparing';
    this.prepared = null;
    this.readyAtMs = now + pauseMs;
    const began = this.live.nowMs();
    this.nextLine().then(
      (next) => {
        // Time past the pause that the caller spent writing and voicing: the caller's, not the agent's.
        const readyAtMs = this.live.nowMs();
        const ms = Math.max(0, readyAtMs - began - pauseMs);
        this.thinkMs += ms;
        if (ms > 0) this.thinkSpans.push({ readyAtMs, ms });
        const u = next.utterance;
        this.prepared =
          overAgent && u && this.live.agentBusy(this.live.nowMs())
            ? { ...next, utterance: asAct(u, 'barge_in') }
            : next;
      },
      (err: unknown) => this.finish({ failure: (err as Error).message }),
    );
  }

  private async nextLine(): Promise<{
    utterance: Utterance | null;
    ended: boolean;
    hangup?: boolean;
  }> {
    const script = this.parts.script;
    if (script) {
      // Lines that only keep silent were kept (or broken by the agent) already: past them.
      for (;;) {
        const i = this.scriptIndex++;
        const line = this.setup.scenario.script![i];
        if (!line) return { utterance: null, ended: true };
        const voiced = script[i] ?? null;
        if (!voiced && !line.hangup) continue;
        // A barge-in or backchannel line whose moment never came is said as an answer.
        const utterance = voiced && voiced.act !== 'dtmf' ? { ...voiced, act: undefined } : voiced;
        return { utterance, ended: false, hangup: line.hangup === true };
      }
    }
    if (this.replies > 0 || this.live.agentSpeech.length > 0)
      this.caller.heard(await this.agentWordsSoFar());
    const said = await this.caller.next();
    if (!said.text) return { utterance: null, ended: said.ended };
    const pcm = await voiceText(said.text, this.parts.voicing);
    const utterance = spoken(pcm, this.live.rate, { text: said.text, source: 'model' });
    return { utterance, ended: said.ended };
  }

  private heardUpTo = 0;
  private agentTextUpTo = 0;

  /** What the agent said since the caller last spoke: its text events, else speech-to-text of its audio. */
  private async agentWordsSoFar(): Promise<string> {
    if (!this.parts.sttNeeded) {
      const { agentTexts } = this.live.texts;
      const texts = agentTexts.slice(this.agentTextUpTo);
      this.agentTextUpTo = agentTexts.length;
      return texts.map((t) => t.text).join(' ');
    }
    const spans = this.live.agentSpeech.slice(this.heardUpTo);
    this.heardUpTo = this.live.agentSpeech.length;
    const joined = concatPcm(spans.flatMap((s) => s.pcm));
    const text = await this.setup.speech.transcribe(joined, this.live.rate, this.setup.signal);
    spans.forEach((s, i) => (s.transcript = i === 0 ? text : ''));
    return text;
  }

  private speak(now: number): void {
    const next = this.prepared!;
    this.prepared = null;
    this.cuttingIn = false;
    this.hangupAfterLine = next.hangup === true;
    if (!next.utterance) {
      if (next.hangup) return this.hangUp();
      return this.finish({ reason: 'caller_ended' });
    }
    this.finalLine = next.ended;
    this.live.say(next.utterance);
    this.sendDigitEvents(next.utterance, now);
    if (next.utterance.act === 'barge_in') {
      this.afterOverAgent = 'waiting';
      this.phase = 'over_agent';
    } else this.phase = 'speaking';
  }

  /** Digits as the protocol's events go as the line starts; in-band tones are in its audio. */
  private sendDigitEvents(u: Utterance, now: number): void {
    if (!u.dtmf) return;
    if (this.live.sendsDtmf && this.parts.voicing.dtmfEvents) {
      this.live.sendDtmf(u.dtmf);
      this.log.dtmf.push({ atMs: Math.round(now), digits: u.dtmf, via: 'event' });
    } else this.log.dtmf.push({ atMs: Math.round(now), digits: u.dtmf, via: 'tones' });
  }

  /** The caller's line is said: it hangs up, closes, or waits for the agent. */
  private lineSaid(now: number): void {
    if (this.hangupAfterLine) return this.hangUp();
    this.phase = this.finalLine ? 'closing' : 'waiting';
    this.readyAtMs = now + 5_000; // a goodbye gets this long for an answer
    this.armNextScripted();
  }

  private hangUp(): void {
    this.log.hungUp = true;
    this.finish({ reason: 'caller_ended', hungUp: true });
  }
}
