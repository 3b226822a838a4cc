/**
 * The demo agent on an audio call: the agent side of Twilio Media Streams. It hears the caller's
 * mu-law frames through an energy speech detector (on the caller's audio clock: samples
 * received), answers each line in the offline system voice, says its words as `agent_text`
 * messages just before their audio (so the caller's side needs no speech-to-text) and its tool
 * calls as `agent_tool_call`, stops for a
 * caller who talks over it (`clear`), and hangs up once its goodbye has played (`mark` echoed).
 */
import type WebSocket from 'ws';
import type { RawData } from 'ws';
import { durationMs, mulawDecode, mulawEncode, resample, samplesPerFrame } from '../audio/pcm.js';
import { SpeechDetector } from '../audio/vad.js';
import { DEFAULT_VOICE } from '../domain/audio.js';
import type { DemoKnobs } from '../domain/demo.js';
import { obj, str } from '../providers/read.js';
import type { Speech } from '../speech/index.js';
import { DEMO_GREETING, DemoBrain, type DemoReply, type OrderLookup } from './brain.js';

const RATE = 8_000;
/** A talk-over reply starts this long after the caller starts a line. */
const TALK_OVER_AFTER_MS = 600;
/** Caller speech over the agent for this long stops it (the detector's own start hysteresis). */
const BARGE_IN_START_MS = 250;
/** Silence that ends a caller's line: longer than a pause between words. */
const LINE_END_MS = 500;

export interface DemoCallOptions {
  socket: WebSocket;
  knobs: DemoKnobs;
  speech: Speech;
  lookup: OrderLookup;
  log: (message: string) => void;
}

type Json = Record<string, unknown>;

/** A socket message as text, whichever of ws's shapes it came in. */
const textOf = (data: RawData): string =>
  Buffer.isBuffer(data)
    ? data.toString('utf8')
    : Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data).toString('utf8');

/** One audio call with the demo agent; it ends itself when the socket closes. */
export class DemoVoiceCall {
  private readonly brain: DemoBrain;
  private readonly detector = new SpeechDetector(RATE, {
    startMs: BARGE_IN_START_MS,
    endMs: LINE_END_MS,
  });
  private streamSid = '';
  /**
   * It has no speech recognition: the order number comes from keyed digits, else from the call's
   * parameters (Twilio's `customParameters`, which carry the scenario's variables), as a
   * telephony front end hands a bot the caller's context.
   */
  private orderParameter = '';
  private callerSamples = 0;
  private keyed = '';
  /** Wall time (performance.now) until which the agent's audio is still playing. */
  private speakingUntil = 0;
  private marks = 0;
  private hangUpAtMark: string | null = null;
  private pendingReply: NodeJS.Timeout | null = null;
  /** A reply for the current caller line was already started (talk-over, or after its end). */
  private lineAnswered = false;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly o: DemoCallOptions) {
    this.brain = new DemoBrain(o.knobs, o.lookup);
    o.socket.on('message', (data: RawData) => this.onMessage(data));
    o.socket.on('close', () => this.close());
    o.socket.on('error', () => this.close());
  }

  private onMessage(data: RawData): void {
    let message: Json;
    try {
      message = obj(JSON.parse(textOf(data)) as unknown);
    } catch {
      return;
    }
    const body = (key: string) => obj(message[key]);
    switch (message.event) {
      case 'start': {
        const start = body('start');
        this.streamSid = str(start.streamSid) ?? str(message.streamSid) ?? '';
        this.orderParameter = str(obj(start.customParameters).order_id) ?? '';
        return this.enqueue(() => this.say({ text: DEMO_GREETING, toolCall: null, ended: false }));
      }
      case 'media':
        return this.hear(str(body('media').payload) ?? '');
      case 'dtmf':
        this.keyed += str(body('dtmf').digit) ?? '';
        return;
      case 'mark':
        if (body('mark').name === this.hangUpAtMark) this.hangUp();
        return;
      case 'stop':
        return this.close();
    }
  }

  private hear(payload: string): void {
    const pcm = mulawDecode(Buffer.from(payload, 'base64'));
    const atMs = durationMs(this.callerSamples, RATE);
    this.callerSamples += pcm.length;
    for (const event of this.detector.feed(pcm, atMs)) {
      if (event.type === 'start') this.lineStarted();
      else this.lineEnded();
    }
  }

  private lineStarted(): void {
    this.lineAnswered = false;
    if (performance.now() < this.speakingUntil) this.stopSpeaking();
    if (this.o.knobs.talkOverCaller) this.replyIn(TALK_OVER_AFTER_MS);
  }

  private lineEnded(): void {
    if (!this.lineAnswered) this.replyIn(this.o.knobs.answerDelayMs ?? 0);
  }

  /** Answers the caller's line after `ms`; the digits keyed so far go with it. */
  private replyIn(ms: number): void {
    this.lineAnswered = true;
    if (this.pendingReply) clearTimeout(this.pendingReply);
    this.pendingReply = setTimeout(() => {
      this.pendingReply = null;
      const heard = this.keyed || this.orderParameter;
      this.keyed = '';
      this.enqueue(async () => this.say(await this.brain.reply(heard)));
    }, ms);
  }

  /** Replies are said one after another, in the order their lines came. */
  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain
      .then(work)
      .catch((err: unknown) => this.o.log(`demo agent: ${(err as Error).message}`));
  }

  private async say(reply: DemoReply): Promise<void> {
    if (this.closed) return;
    if (reply.toolCall) this.send({ event: 'agent_tool_call', agent_tool_call: reply.toolCall });
    if (!reply.text) return;
    const spoken = await this.o.speech.synthesize(reply.text, DEFAULT_VOICE);
    if (this.closed) return;
    const pcm = resample(spoken.pcm, spoken.sampleRate, RATE);
    this.send({ event: 'agent_text', agent_text: { text: reply.text } });
    const frame = samplesPerFrame(RATE);
    for (let i = 0; i < pcm.length; i += frame) {
      const payload = mulawEncode(pcm.subarray(i, i + frame)).toString('base64');
      this.send({ event: 'media', media: { payload } });
    }
    const mark = `reply-${++this.marks}`;
    this.send({ event: 'mark', mark: { name: mark } });
    this.speakingUntil =
      Math.max(performance.now(), this.speakingUntil) + durationMs(pcm.length, RATE);
    if (reply.ended) this.hangUpAtMark = mark;
  }

  /** The caller talks over the agent: what it has not played yet is void. */
  private stopSpeaking(): void {
    this.speakingUntil = 0;
    this.send({ event: 'clear' });
    if (this.hangUpAtMark) this.hangUp();
  }

  private send(message: Json): void {
    if (this.closed || this.o.socket.readyState !== this.o.socket.OPEN) return;
    this.o.socket.send(JSON.stringify({ ...message, streamSid: this.streamSid }));
  }

  private hangUp(): void {
    if (this.closed) return;
    this.o.socket.close(1000, 'the agent hung up');
    this.close();
  }

  private close(): void {
    this.closed = true;
    if (this.pendingReply) clearTimeout(this.pendingReply);
    this.pendingReply = null;
  }
}
