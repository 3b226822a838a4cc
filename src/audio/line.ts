/**
 * The telephone line between the simulated caller and the agent: what the line does to the
 * caller's sound (band, codec), and when each 20 ms frame reaches the far end (latency, jitter,
 * loss). Everything random is drawn from the `random` it is given, so a seeded line replays the
 * same call exactly.
 */
import { LatenessHistogram } from './lateness-histogram.js';
import { mulawDecode, mulawEncode } from './pcm.js';
import { BiquadCascade, butterworth, butterworthSections } from './biquad.js';

export type LineCodec = 'pcm16' | 'mulaw';

export type LineSpec = {
  codec: LineCodec;
  sampleRate: 8000 | 16000;
  /** Long-run share of frames the line drops, 0-100 (bursty: see `GilbertElliottLoss`). */
  lossPercent: number;
  /** Extra one-way delay per frame, uniform in [0, jitterMs]. */
  jitterMs: number;
  /** Fixed one-way delay. */
  latencyMs: number;
};

export type LinePreset = 'studio' | 'phone' | 'mobile';

export const LINE_PRESETS: Readonly<Record<LinePreset, Readonly<LineSpec>>> = {
  studio: { codec: 'pcm16', sampleRate: 16000, lossPercent: 0, jitterMs: 0, latencyMs: 0 },
  phone: { codec: 'mulaw', sampleRate: 8000, lossPercent: 0, jitterMs: 0, latencyMs: 0 },
  mobile: { codec: 'mulaw', sampleRate: 8000, lossPercent: 3, jitterMs: 40, latencyMs: 80 },
};

/** The classic telephone voice band (ITU-T G.712's 300-3400 Hz). */
export const PHONE_BAND_LOW_HZ = 300;
export const PHONE_BAND_HIGH_HZ = 3400;
/**
 * Filter orders for the band edges. The high side is steep (8th order) because a narrowband
 * codec leaves almost nothing above 3.4 kHz; the low side rolls off gently like a real handset.
 */
const BAND_LOW_ORDER = 4;
const BAND_HIGH_ORDER = 8;
/**
 * The upper edge's -3 dB point sits a little inside the band, so that by 3.4 kHz the line is
 * already well down (as a narrowband codec's steep filters are) rather than half way.
 */
const BAND_HIGH_CORNER_HZ = 3350;
/**
 * Guards around the rate change, at the call's rate with their corner at 95% of the line's
 * Nyquist (3.8 kHz for 8 kHz): before decimating, what would fold back into the voice band is cut
 * (6th order: -16 dB at 4.6 kHz, -25 dB at 5 kHz, -50 dB at 6 kHz; what folds to 3.4-4 kHz meets
 * the steep band edge at the line's rate anyway); after zero-stuffing, the images from 4.6 kHz up.
 * The band edge itself runs at the line's rate, where the bilinear transform's warping near
 * Nyquist makes an 8th-order Butterworth very steep for its cost.
 */
const ANTI_ALIAS_ORDER = 6;
const ANTI_IMAGE_ORDER = 6;
const GUARD_SHARE_OF_NYQUIST = 0.95;

/** A mu-law line, or an 8 kHz one, carries only the telephone band. */
export function isBandLimited(spec: LineSpec): boolean {
  return spec.codec === 'mulaw' || spec.sampleRate === 8000;
}

let mulawRoundTripTable: Int16Array | null = null;

/** Every int16 value after G.711 encode + decode, indexed by `value & 0xffff` (built once). */
function mulawRoundTrip(): Int16Array {
  if (!mulawRoundTripTable) {
    const all = new Int16Array(65536);
    for (let i = 0; i < 65536; i++) all[i] = i; // wraps: index i holds the int16 with bits i
    mulawRoundTripTable = mulawDecode(mulawEncode(all));
  }
  return mulawRoundTripTable;
}

/** Saturated to int16, fraction truncated (`| 0`): cheaper than rounding, and inaudible. */
function toInt16(value: number): number {
  return (value > 32767 ? 32767 : value < -32768 ? -32768 : value) | 0;
}

/**
 * What the line does to the sound of one frame, in place, with no allocation per frame. At the
 * line's rate the frame is band-passed to 300-3400 Hz and mu-law coded. When that rate is below
 * the call's (an 8 kHz line on a 16 kHz call) the frame gets there by a guard low-pass and
 * decimation, and comes back by zero-stuffing and another guard low-pass. The streaming
 * windowed-sinc `Resampler` (resample.ts) would cost ~25 us a frame each way, several times this
 * whole chain, and the band filter already does most of its work. There is no look-ahead, so no
 * priming and no lag in samples: the IIR filters' group delay (~0.25 ms at 1 kHz) is all.
 */
class LineSound {
  /** Call-rate samples per line-rate sample (1, or 2 for an 8 kHz line on a 16 kHz call). */
  private readonly factor: number;
  private readonly antiAlias: BiquadCascade | null;
  private readonly antiImage: BiquadCascade | null;
  /** The voice band's two edges in one cascade: one set of passes over the frame. */
  private readonly band: BiquadCascade | null;
  private readonly mulaw: Int16Array | null;
  private callScratch = new Float64Array(0);
  private lineScratch = new Float64Array(0);

  constructor(spec: LineSpec, callRate: number) {
    const lineRate = Math.min(spec.sampleRate, callRate);
    this.factor = callRate / lineRate;
    if (!Number.isInteger(this.factor)) {
      throw new RangeError(`a ${lineRate} Hz line cannot carry a ${callRate} Hz call`);
    }
    const resampled = this.factor > 1;
    const guardHz = GUARD_SHARE_OF_NYQUIST * (lineRate / 2);
    this.antiAlias = resampled ? butterworth('lowpass', ANTI_ALIAS_ORDER, guardHz, callRate) : null;
    this.antiImage = resampled ? butterworth('lowpass', ANTI_IMAGE_ORDER, guardHz, callRate) : null;
    this.band = isBandLimited(spec)
      ? new BiquadCascade([
          ...butterworthSections('highpass', BAND_LOW_ORDER, PHONE_BAND_LOW_HZ, lineRate),
          ...butterworthSections('lowpass', BAND_HIGH_ORDER, BAND_HIGH_CORNER_HZ, lineRate),
        ])
      : null;
    this.mulaw = spec.codec === 'mulaw' ? mulawRoundTrip() : null;
  }

  apply(frame: Int16Array): void {
    if (this.callScratch.length !== frame.length) this.allocate(frame.length);
    const line = this.lineScratch;
    if (this.factor === 1) {
      for (let j = 0; j < line.length; j++) line[j] = frame[j]!;
      this.band?.process(line);
      this.codeInto(frame, line);
      return;
    }
    const call = this.callScratch;
    const factor = this.factor;
    for (let i = 0; i < frame.length; i++) call[i] = frame[i]!;
    this.antiAlias?.process(call);
    for (let j = 0; j < line.length; j++) line[j] = call[j * factor]!;
    this.band?.process(line);
    this.codeInto(line, line);
    // Zero-stuffing spreads each sample's energy over `factor` slots: the gain restores it.
    call.fill(0);
    for (let j = 0; j < line.length; j++) call[j * factor] = line[j]! * factor;
    this.antiImage?.process(call);
    for (let i = 0; i < frame.length; i++) frame[i] = toInt16(call[i]!);
  }

  /** `to[j]` = `from[j]` as int16, through the codec when there is one (one pass, no copy). */
  private codeInto(to: Int16Array | Float64Array, from: Float64Array): void {
    const table = this.mulaw;
    if (table) for (let j = 0; j < from.length; j++) to[j] = table[toInt16(from[j]!) & 0xffff]!;
    else for (let j = 0; j < from.length; j++) to[j] = toInt16(from[j]!);
  }

  /** Scratch for a frame length (once per call: frames keep their length). */
  private allocate(length: number): void {
    if (length % this.factor !== 0) {
      throw new RangeError(`a ${length}-sample frame does not split by ${this.factor}`);
    }
    this.callScratch = new Float64Array(length);
    this.lineScratch = new Float64Array(length / this.factor);
  }
}

/**
 * Bursty packet loss, the two-state Gilbert-Elliott model: in the good state nothing is lost, in
 * the bad state every frame is. Bad runs last `MEAN_BURST_FRAMES` on average (geometric), and the
 * good-to-bad rate is set so the long-run (stationary) share of bad frames equals the loss rate:
 * p / (p + r) = loss, with r = 1 / MEAN_BURST_FRAMES. Mobile networks lose audio in such short
 * bursts rather than as independent frames.
 */
class GilbertElliottLoss {
  static readonly MEAN_BURST_FRAMES = 2;
  private readonly goodToBad: number;
  private readonly badToGood: number;
  private readonly rate: number;
  private bad: boolean | null = null;

  constructor(
    lossPercent: number,
    private readonly random: () => number,
  ) {
    this.rate = Math.min(1, Math.max(0, lossPercent / 100));
    let r = 1 / GilbertElliottLoss.MEAN_BURST_FRAMES;
    let p = this.rate < 1 ? (r * this.rate) / (1 - this.rate) : 1;
    if (p > 1) {
      // Above 2/3 loss the bursts must be longer: leave bad as rarely as the rate demands.
      p = 1;
      r = (1 - this.rate) / this.rate;
    }
    this.goodToBad = p;
    this.badToGood = r;
  }

  /** Whether the next frame is lost. A loss-free line draws no random numbers. */
  next(): boolean {
    if (this.rate === 0) return false;
    if (this.bad === null)
      this.bad = this.random() < this.rate; // start in the stationary mix
    else this.bad = this.random() < (this.bad ? 1 - this.badToGood : this.goodToBad);
    return this.bad;
  }
}

export interface LineSimulatorOptions {
  spec: LineSpec;
  /** The transport's rate (8000 or 16000): frames go in and come out at this rate. */
  callRate: number;
  random: () => number;
}

export interface LineDelivery {
  /** When the frame reaches (or, lost, would have reached) the agent, ms since call start. */
  wireAtMs: number;
  lost: boolean;
}

export interface LineStats {
  frames: number;
  lost: number;
  /** The line's fixed one-way delay; the variable part is the jitter. */
  latencyMs: number;
  /** Delay beyond `latencyMs` (jitter plus the wait to keep order), over every frame pushed. */
  jitterP50Ms: number;
  jitterMaxMs: number;
}

/**
 * One call's line. `push` each caller frame as it is generated; `due` hands over, in order, the
 * frames that have reached the agent by now. `push` takes ownership of the frame: the line's
 * sound is applied in place and that same array is queued (copy it first to keep the original).
 */
export class LineSimulator {
  private readonly sound: LineSound | null;
  private readonly loss: GilbertElliottLoss;
  private readonly spec: LineSpec;
  private readonly random: () => number;
  private readonly queuedFrames: Int16Array[] = [];
  private readonly queuedWireAt: number[] = [];
  private head = 0;
  private lastWireAtMs = -Infinity;
  private frames = 0;
  private lost = 0;
  private readonly jitter = new LatenessHistogram();

  constructor(opts: LineSimulatorOptions) {
    this.spec = { ...opts.spec };
    this.random = opts.random;
    const lineRate = Math.min(opts.spec.sampleRate, opts.callRate);
    const transparent = !isBandLimited(opts.spec) && lineRate === opts.callRate;
    this.sound = transparent ? null : new LineSound(this.spec, opts.callRate);
    this.loss = new GilbertElliottLoss(this.spec.lossPercent, this.random);
  }

  /** True when the line leaves the sound untouched (a studio line, or wider than the call). */
  get passesSoundThrough(): boolean {
    return this.sound === null;
  }

  push(frame: Int16Array, atMs: number): LineDelivery {
    // The sound runs even for frames about to be lost: the filters' state must keep flowing.
    if (this.sound) this.sound.apply(frame);
    const lost = this.loss.next();
    const { latencyMs, jitterMs } = this.spec;
    const jitter = jitterMs > 0 ? this.random() * jitterMs : 0;
    const wireAtMs = Math.max(atMs + latencyMs + jitter, this.lastWireAtMs);
    this.lastWireAtMs = wireAtMs;
    this.frames++;
    this.jitter.add(wireAtMs - atMs - latencyMs);
    if (lost) this.lost++;
    else {
      this.queuedFrames.push(frame);
      this.queuedWireAt.push(wireAtMs);
    }
    return { wireAtMs, lost };
  }

  /** The queued frames whose wire time is at or before `nowMs`, oldest first. */
  due(nowMs: number): Int16Array[] {
    const out: Int16Array[] = [];
    while (this.head < this.queuedFrames.length && this.queuedWireAt[this.head]! <= nowMs) {
      out.push(this.queuedFrames[this.head]!);
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.queuedFrames.length) this.compact();
    return out;
  }

  /** Frames pushed and not yet handed over by `due` (lost frames are never queued). */
  get pending(): number {
    return this.queuedFrames.length - this.head;
  }

  stats(): LineStats {
    return {
      frames: this.frames,
      lost: this.lost,
      latencyMs: this.spec.latencyMs,
      jitterP50Ms: this.jitter.percentile(50),
      jitterMaxMs: this.jitter.stats().lateMaxMs,
    };
  }

  private compact(): void {
    this.queuedFrames.splice(0, this.head);
    this.queuedWireAt.splice(0, this.head);
    this.head = 0;
  }
}
