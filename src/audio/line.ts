/**
 * The telephone line between the simulated caller and the agent: what the line does to the
 * caller's sound (band, codec), and when each 20 ms frame reaches the far end (latency, jitter,
 * loss). Everything random is drawn from the `random` it is given, so a seeded line replays the
 * same call exactly.
 */
import { LatenessHistogram } from './lateness-histogram.js';
import { mulawRoundTrip } from './pcm.js';
import { BiquadCascade, butterworth, butterworthSections } from './biquad.js';
import type { NoiseMixer } from './noise-mixer.js';

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

/** The rate a line carries a call at: its own, or the call's where that is narrower. */
export const lineRateOn = (lineSampleRate: number, callRate: number): number =>
  Math.min(lineSampleRate, callRate);

/** A mu-law line, or an 8 kHz one, carries only the telephone band. */
export function isBandLimited(spec: LineSpec): boolean {
  return spec.codec === 'mulaw' || spec.sampleRate === 8000;
}

/** Saturated to int16, fraction truncated (`| 0`): cheaper than rounding, and inaudible. */
function toInt16(value: number): number {
  return (value > 32767 ? 32767 : value < -32768 ? -32768 : value) | 0;
}

/** True when every sample is zero. */
function isSilent(frame: Int16Array): boolean {
  for (let i = 0; i < frame.length; i++) if (frame[i] !== 0) return false;
  return true;
}

/**
 * State this far under one sample step counts as rest: what it would still add is lost in the
 * int16 rounding after the codec.
 */
const REST_FLOOR = 1e-4;

/**
 * The line's filtering up to its codec, from the call's rate to the line's: a guard low-pass and
 * decimation when the line's rate is below the call's (an 8 kHz line on a 16 kHz call), then the
 * voice band (300-3400 Hz), all in float.
 */
class BandLimiter {
  readonly factor: number;
  readonly lineRate: number;
  private readonly antiAlias: BiquadCascade | null;
  /** The voice band's two edges in one cascade: one set of passes over the frame. */
  private readonly band: BiquadCascade | null;

  constructor(spec: LineSpec, callRate: number) {
    this.lineRate = lineRateOn(spec.sampleRate, callRate);
    this.factor = callRate / this.lineRate;
    if (!Number.isInteger(this.factor)) {
      throw new RangeError(`a ${this.lineRate} Hz line cannot carry a ${callRate} Hz call`);
    }
    this.antiAlias =
      this.factor > 1
        ? butterworth('lowpass', ANTI_ALIAS_ORDER, guardHz(this.lineRate), callRate)
        : null;
    this.band = isBandLimited(spec)
      ? new BiquadCascade([
          ...butterworthSections('highpass', BAND_LOW_ORDER, PHONE_BAND_LOW_HZ, this.lineRate),
          ...butterworthSections('lowpass', BAND_HIGH_ORDER, BAND_HIGH_CORNER_HZ, this.lineRate),
        ])
      : null;
  }

  /** `input` (call rate) into `out` (line rate, input.length / factor); `scratch` is input's size. */
  run(input: Int16Array, out: Float64Array, scratch: Float64Array): void {
    if (this.factor === 1) {
      for (let j = 0; j < out.length; j++) out[j] = input[j]!;
    } else {
      for (let i = 0; i < input.length; i++) scratch[i] = input[i]!;
      this.antiAlias?.process(scratch);
      for (let j = 0; j < out.length; j++) out[j] = scratch[j * this.factor]!;
    }
    this.band?.process(out);
  }

  /** Whether the filters are at rest (their state then exactly zero): see BiquadCascade.settle. */
  settle(): boolean {
    const alias = this.antiAlias?.settle(REST_FLOOR) ?? true;
    const band = this.band?.settle(REST_FLOOR) ?? true;
    return alias && band;
  }
}

const guardHz = (lineRate: number) => GUARD_SHARE_OF_NYQUIST * (lineRate / 2);

/** A noise loop on a line: band-limited (at the line's rate), and that through the codec too. */
interface LineNoise {
  limited: Float64Array;
  /** What the agent gets of the noise alone: the frames in which the caller is silent. */
  coded: Int16Array;
}

/** Noise loops on lines, by level-set loop and line: a persona's calls on a line share one. */
const lineNoises = new WeakMap<Int16Array, Map<string, LineNoise>>();

/** A band-limited sample through the codec, as int16. */
const codeSample = (mulaw: boolean, value: number) =>
  mulaw ? mulawRoundTrip(toInt16(value)) : toInt16(value);

/**
 * A noise loop as it leaves the band limiter, at the line's rate, made once. Twice round the
 * loop: the first lap brings the filters to the state they have at the start of every lap after
 * it, so the second, kept, wraps seamlessly. Null when the loop does not split into whole line
 * samples (an odd length at half the call's rate).
 */
function lineNoise(loop: Int16Array, spec: LineSpec, callRate: number): LineNoise | null {
  const limiter = new BandLimiter(spec, callRate);
  if (loop.length % limiter.factor !== 0) return null;
  let byLine = lineNoises.get(loop);
  if (!byLine) lineNoises.set(loop, (byLine = new Map<string, LineNoise>()));
  const key = `${callRate}/${limiter.lineRate}/${isBandLimited(spec)}/${spec.codec}`;
  let found = byLine.get(key);
  if (!found) {
    const limited = new Float64Array(loop.length / limiter.factor);
    const scratch = new Float64Array(loop.length);
    limiter.run(loop, limited, scratch);
    limiter.run(loop, limited, scratch);
    const mulaw = spec.codec === 'mulaw';
    found = { limited, coded: Int16Array.from(limited, (v) => codeSample(mulaw, v)) };
    byLine.set(key, found);
  }
  return found;
}

/** `loop[start...]` (wrapping) into `to`. */
function copyLoop(to: Int16Array, loop: Int16Array, start: number): void {
  const first = Math.min(to.length, loop.length - start);
  to.set(loop.subarray(start, start + first));
  for (let done = first; done < to.length;) {
    const run = Math.min(to.length - done, loop.length);
    to.set(loop.subarray(0, run), done);
    done += run;
  }
}

/**
 * What the line does to the sound of one frame, in place, with no allocation per frame: the band
 * limiter, then the codec at the line's rate, and back to the call's rate by zero-stuffing and a
 * guard low-pass (the streaming windowed-sinc `Resampler` of resample.ts would cost ~25 us a
 * frame each way, several times this whole chain). There is no look-ahead, so no priming and no
 * lag in samples: the IIR filters' group delay (~0.25 ms at 1 kHz) is all.
 *
 * The caller's noise is band-limited apart from its speech and added before the codec. The
 * filters are linear, so this is the same sound as filtering the sum, but the noise loop is
 * filtered once for every call of the persona, and the speech filters run only while there is
 * speech or its ringing: most of a call, the caller is silent.
 */
class LineSound {
  private readonly limiter: BandLimiter;
  private readonly antiImage: BiquadCascade | null;
  private readonly mulaw: boolean;
  /** The speech filters are at rest: a silent frame leaves them with exact silence. */
  private resting = true;
  private noise: { mixer: NoiseMixer; onLine: LineNoise | null } | null = null;
  private callScratch = new Float64Array(0);
  private lineScratch = new Float64Array(0);
  private codedScratch = new Int16Array(0);

  constructor(
    private readonly spec: LineSpec,
    private readonly callRate: number,
  ) {
    this.limiter = new BandLimiter(spec, callRate);
    this.antiImage =
      this.limiter.factor > 1
        ? butterworth('lowpass', ANTI_IMAGE_ORDER, guardHz(this.limiter.lineRate), callRate)
        : null;
    this.mulaw = spec.codec === 'mulaw';
  }

  apply(frame: Int16Array, mixer: NoiseMixer | null): void {
    if (this.callScratch.length !== frame.length) this.allocate(frame.length);
    const factor = this.limiter.factor;
    const loop = mixer ? this.noiseOf(mixer) : null;
    if (mixer && !loop) mixer.mixInto(frame);
    const silent = isSilent(frame);
    let speech: Float64Array | null = null;
    if (!silent || !this.resting) {
      speech = this.lineScratch;
      this.limiter.run(frame, speech, this.callScratch);
      this.resting = silent && this.limiter.settle();
    }
    const noiseAt = mixer && loop ? mixer.advance(frame.length) / factor : 0;
    if (factor === 1) return this.code(frame, speech, loop, noiseAt);
    const coded = this.codedScratch;
    this.code(coded, speech, loop, noiseAt);
    // Zero-stuffing spreads each sample's energy over `factor` slots: the gain restores it.
    const call = this.callScratch;
    call.fill(0);
    for (let j = 0; j < coded.length; j++) call[j * factor] = coded[j]! * factor;
    this.antiImage?.process(call);
    for (let i = 0; i < frame.length; i++) frame[i] = toInt16(call[i]!);
  }

  /** The mixer's loop on this line (null: it is mixed in before the line instead). */
  private noiseOf(mixer: NoiseMixer): LineNoise | null {
    if (this.noise?.mixer !== mixer) {
      this.noise = { mixer, onLine: lineNoise(mixer.loop, this.spec, this.callRate) };
    }
    return this.noise.onLine;
  }

  /**
   * `to[j]` = the band-limited speech plus the band-limited noise from `noiseAt` (either may be
   * absent: silence), as int16 through the codec: one pass over the frame at the line's rate, or
   * a copy of the coded noise while the caller is silent.
   */
  private code(
    to: Int16Array,
    speech: Float64Array | null,
    noise: LineNoise | null,
    noiseAt: number,
  ): void {
    if (!speech) {
      if (noise) copyLoop(to, noise.coded, noiseAt);
      else to.fill(0);
      return;
    }
    const loop = noise?.limited ?? null;
    let at = noiseAt;
    for (let j = 0; j < to.length; j++) {
      let value = speech[j]!;
      if (loop) {
        value += loop[at]!;
        at = at + 1 === loop.length ? 0 : at + 1;
      }
      to[j] = codeSample(this.mulaw, value);
    }
  }

  /** Scratch for a frame length (once per call: frames keep their length). */
  private allocate(length: number): void {
    const factor = this.limiter.factor;
    if (length % factor !== 0) {
      throw new RangeError(`a ${length}-sample frame does not split by ${factor}`);
    }
    this.callScratch = new Float64Array(length);
    this.lineScratch = new Float64Array(length / factor);
    this.codedScratch = new Int16Array(length / factor);
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
 * One call's line. `push` each caller frame as it is generated; `handOver` gives, in order, the
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
  private readonly delivery: LineDelivery = { wireAtMs: 0, lost: false };

  constructor(opts: LineSimulatorOptions) {
    this.spec = { ...opts.spec };
    this.random = opts.random;
    const lineRate = lineRateOn(opts.spec.sampleRate, opts.callRate);
    const transparent = !isBandLimited(opts.spec) && lineRate === opts.callRate;
    this.sound = transparent ? null : new LineSound(this.spec, opts.callRate);
    this.loss = new GilbertElliottLoss(this.spec.lossPercent, this.random);
  }

  /** True when the line leaves the sound untouched (a studio line, or wider than the call). */
  get passesSoundThrough(): boolean {
    return this.sound === null;
  }

  /**
   * `noise`: the caller's surroundings, mixed under the frame before the line's sound. Answers
   * one object, the line's own, rewritten by the next push (a call sends 50 frames a second:
   * one object each would be garbage the frame clock pays for).
   */
  push(frame: Int16Array, atMs: number, noise: NoiseMixer | null = null): LineDelivery {
    // The sound runs even for frames about to be lost: the filters' state must keep flowing.
    if (this.sound) this.sound.apply(frame, noise);
    else noise?.mixInto(frame);
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
    this.delivery.wireAtMs = wireAtMs;
    this.delivery.lost = lost;
    return this.delivery;
  }

  /**
   * Hands each queued frame whose wire time is at or before `nowMs` to `send`, oldest first
   * (a callback, not an array: the frame loop calls this 50 times a second per call).
   */
  handOver(nowMs: number, send: (frame: Int16Array) => void): void {
    while (this.head < this.queuedFrames.length && this.queuedWireAt[this.head]! <= nowMs) {
      send(this.queuedFrames[this.head]!);
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.queuedFrames.length) this.compact();
  }

  /** Frames pushed and not yet handed over by `handOver` (lost frames are never queued). */
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
