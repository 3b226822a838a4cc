/**
 * Second-order IIR sections from Robert Bristow-Johnson's "Audio EQ Cookbook", and Butterworth
 * cascades built from them. Each instance keeps its own state, so a filter fed one 20 ms frame
 * at a time behaves exactly like one fed the whole stream.
 */

export type BiquadKind = 'lowpass' | 'highpass';

/** State below this is flushed to zero: decaying IIR state would otherwise go subnormal (slow). */
const DENORMAL_FLOOR = 1e-20;

/** One RBJ section, run in transposed direct form II (two state words, good numerics). */
export class Biquad {
  private readonly b0: number;
  private readonly b1: number;
  private readonly b2: number;
  private readonly a1: number;
  private readonly a2: number;
  private z1 = 0;
  private z2 = 0;

  /** `q` defaults to 1/sqrt(2), a second-order Butterworth (maximally flat) response. */
  constructor(kind: BiquadKind, cutoffHz: number, sampleRate: number, q = Math.SQRT1_2) {
    if (!(cutoffHz > 0 && cutoffHz < sampleRate / 2)) {
      throw new RangeError(`cutoff ${cutoffHz} Hz must lie between 0 and ${sampleRate / 2} Hz`);
    }
    const w0 = (2 * Math.PI * cutoffHz) / sampleRate;
    const cos = Math.cos(w0);
    const alpha = Math.sin(w0) / (2 * q);
    const a0 = 1 + alpha;
    const edge = kind === 'lowpass' ? (1 - cos) / 2 : (1 + cos) / 2;
    this.b0 = edge / a0;
    this.b1 = (kind === 'lowpass' ? 2 * edge : -2 * edge) / a0;
    this.b2 = edge / a0;
    this.a1 = (-2 * cos) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  /** Filters `frame` in place; int16 output is rounded and saturated. */
  process(frame: Int16Array | Float32Array): void {
    // Two loops, each seeing one array type, so the JIT keeps both tight.
    if (frame instanceof Float32Array) this.processFloat(frame);
    else this.processInt16(frame);
  }

  private processFloat(frame: Float32Array): void {
    const { b0, b1, b2, a1, a2 } = this;
    let { z1, z2 } = this;
    for (let i = 0; i < frame.length; i++) {
      const x = frame[i]!;
      const y = b0 * x + z1;
      z1 = b1 * x - a1 * y + z2;
      z2 = b2 * x - a2 * y;
      frame[i] = y;
    }
    this.keep(z1, z2);
  }

  private processInt16(frame: Int16Array): void {
    const { b0, b1, b2, a1, a2 } = this;
    let { z1, z2 } = this;
    for (let i = 0; i < frame.length; i++) {
      const x = frame[i]!;
      const y = b0 * x + z1;
      z1 = b1 * x - a1 * y + z2;
      z2 = b2 * x - a2 * y;
      frame[i] = y > 32767 ? 32767 : y < -32768 ? -32768 : Math.round(y);
    }
    this.keep(z1, z2);
  }

  private keep(z1: number, z2: number): void {
    this.z1 = Math.abs(z1) < DENORMAL_FLOOR ? 0 : z1;
    this.z2 = Math.abs(z2) < DENORMAL_FLOOR ? 0 : z2;
  }

  reset(): void {
    this.z1 = 0;
    this.z2 = 0;
  }
}

/** Sections run one after another over the same frame. */
export class BiquadCascade {
  constructor(readonly sections: readonly Biquad[]) {}

  process(frame: Int16Array | Float32Array): void {
    for (const section of this.sections) section.process(frame);
  }

  reset(): void {
    for (const section of this.sections) section.reset();
  }
}

/**
 * A Butterworth filter of even `order` (2, 4, 6, ...) as order/2 sections. Section k of n gets
 * Q = 1 / (2 cos((2k - 1) pi / (2 order))): the pole pairs of the Butterworth circle, so the
 * cascade is maximally flat with its -3 dB point at `cutoffHz`.
 */
export function butterworth(
  kind: BiquadKind,
  order: number,
  cutoffHz: number,
  sampleRate: number,
): BiquadCascade {
  if (!Number.isInteger(order) || order < 2 || order % 2 !== 0) {
    throw new RangeError(`Butterworth order must be an even whole number >= 2, got ${order}`);
  }
  const sections: Biquad[] = [];
  for (let k = 1; k <= order / 2; k++) {
    const q = 1 / (2 * Math.cos(((2 * k - 1) * Math.PI) / (2 * order)));
    sections.push(new Biquad(kind, cutoffHz, sampleRate, q));
  }
  return new BiquadCascade(sections);
}
