/**
 * Second-order IIR sections from Robert Bristow-Johnson's "Audio EQ Cookbook", and Butterworth
 * cascades built from them. Each instance keeps its own state, so a filter fed one 20 ms frame
 * at a time behaves exactly like one fed the whole stream.
 */

export type BiquadKind = 'lowpass' | 'highpass';

/** State below this is flushed to zero: decaying IIR state would otherwise go subnormal (slow). */
const DENORMAL_FLOOR = 1e-20;

const SECTIONS_PER_PASS = 3;

/** The five coefficients of one RBJ section, normalised by a0. */
export interface BiquadCoefficients {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/** A section that leaves the signal as it is. */
const PASS_THROUGH: BiquadCoefficients = { b0: 1, b1: 0, b2: 0, a1: 0, a2: 0 };

/** `q` defaults to 1/sqrt(2), a second-order Butterworth (maximally flat) response. */
function biquadCoefficients(
  kind: BiquadKind,
  cutoffHz: number,
  sampleRate: number,
  q = Math.SQRT1_2,
): BiquadCoefficients {
  if (!(cutoffHz > 0 && cutoffHz < sampleRate / 2)) {
    throw new RangeError(`cutoff ${cutoffHz} Hz must lie between 0 and ${sampleRate / 2} Hz`);
  }
  const w0 = (2 * Math.PI * cutoffHz) / sampleRate;
  const cos = Math.cos(w0);
  const alpha = Math.sin(w0) / (2 * q);
  const a0 = 1 + alpha;
  const edge = kind === 'lowpass' ? (1 - cos) / 2 : (1 + cos) / 2;
  return {
    b0: edge / a0,
    b1: (kind === 'lowpass' ? 2 * edge : -2 * edge) / a0,
    b2: edge / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  };
}

/**
 * Sections run one after another over the same frame, each in transposed direct form II (two
 * state words, good numerics). Coefficients and state sit in flat Float64Arrays and the frame is
 * a Float64Array too: with one array type and no float32 rounding on every store, the JIT keeps
 * the loop tight (this runs on every caller frame of every call, on the engine's thread).
 */
export class BiquadCascade {
  /** b0, b1, b2, a1, a2 per section. */
  private readonly coefficients: Float64Array;
  /** z1, z2 per section. */
  private readonly state: Float64Array;

  constructor(sections: readonly BiquadCoefficients[]) {
    // Padded to whole passes with sections that pass the signal through (y = x), so one loop
    // shape serves every cascade.
    const padded = [...sections];
    while (padded.length % SECTIONS_PER_PASS !== 0) padded.push(PASS_THROUGH);
    this.coefficients = new Float64Array(padded.length * 5);
    this.state = new Float64Array(padded.length * 2);
    padded.forEach((c, s) => this.coefficients.set([c.b0, c.b1, c.b2, c.a1, c.a2], s * 5));
  }

  /**
   * Filters `frame` in place, three sections per pass over the frame: within a pass each
   * section's arithmetic for one sample overlaps the others' for the next (the CPU runs them side
   * by side), where one section per pass would wait on its own feedback every sample.
   */
  process(frame: Float64Array): void {
    for (let s = 0; s < this.state.length / 2; s += SECTIONS_PER_PASS) this.processTriple(frame, s);
  }

  private processTriple(frame: Float64Array, s: number): void {
    const c = this.coefficients;
    const st = this.state;
    const p = s * 5;
    // Plain locals, not destructured arrays: those allocate on every call of this hot loop.
    const b0 = c[p]!,
      b1 = c[p + 1]!,
      b2 = c[p + 2]!,
      a1 = c[p + 3]!,
      a2 = c[p + 4]!;
    const d0 = c[p + 5]!,
      d1 = c[p + 6]!,
      d2 = c[p + 7]!,
      e1 = c[p + 8]!,
      e2 = c[p + 9]!;
    const f0 = c[p + 10]!,
      f1 = c[p + 11]!,
      f2 = c[p + 12]!,
      g1 = c[p + 13]!,
      g2 = c[p + 14]!;
    const z = s * 2;
    let z1 = st[z]!,
      z2 = st[z + 1]!,
      w1 = st[z + 2]!,
      w2 = st[z + 3]!,
      u1 = st[z + 4]!,
      u2 = st[z + 5]!;
    for (let i = 0; i < frame.length; i++) {
      const x = frame[i]!;
      const y = b0 * x + z1;
      z1 = b1 * x - a1 * y + z2;
      z2 = b2 * x - a2 * y;
      const v = d0 * y + w1;
      w1 = d1 * y - e1 * v + w2;
      w2 = d2 * y - e2 * v;
      const t = f0 * v + u1;
      u1 = f1 * v - g1 * t + u2;
      u2 = f2 * v - g2 * t;
      frame[i] = t;
    }
    this.keep(s, z1, z2);
    this.keep(s + 1, w1, w2);
    this.keep(s + 2, u1, u2);
  }

  /**
   * Whether the filter is at rest: every state word below `floor` (far under one sample step),
   * in which case they are set to exactly zero, so that silence in gives exact silence out and
   * need not be filtered at all.
   */
  settle(floor: number): boolean {
    const state = this.state;
    for (let i = 0; i < state.length; i++) if (Math.abs(state[i]!) >= floor) return false;
    this.state.fill(0);
    return true;
  }

  /** Stores a section's state, flushing what would decay into subnormals. */
  private keep(s: number, z1: number, z2: number): void {
    this.state[s * 2] = Math.abs(z1) < DENORMAL_FLOOR ? 0 : z1;
    this.state[s * 2 + 1] = Math.abs(z2) < DENORMAL_FLOOR ? 0 : z2;
  }
}

/**
 * A Butterworth filter of even `order` (2, 4, 6, ...) as order/2 sections. Section k of n gets
 * Q = 1 / (2 cos((2k - 1) pi / (2 order))): the pole pairs of the Butterworth circle, so the
 * cascade is maximally flat with its -3 dB point at `cutoffHz`. Answers the sections, so that
 * filters run one after another can share one cascade (and its passes over the frame).
 */
export function butterworthSections(
  kind: BiquadKind,
  order: number,
  cutoffHz: number,
  sampleRate: number,
): BiquadCoefficients[] {
  if (!Number.isInteger(order) || order < 2 || order % 2 !== 0) {
    throw new RangeError(`Butterworth order must be an even whole number >= 2, got ${order}`);
  }
  const sections: BiquadCoefficients[] = [];
  for (let k = 1; k <= order / 2; k++) {
    const q = 1 / (2 * Math.cos(((2 * k - 1) * Math.PI) / (2 * order)));
    sections.push(biquadCoefficients(kind, cutoffHz, sampleRate, q));
  }
  return sections;
}

/** A Butterworth filter as a cascade of its own (see `butterworthSections`). */
export function butterworth(
  kind: BiquadKind,
  order: number,
  cutoffHz: number,
  sampleRate: number,
): BiquadCascade {
  return new BiquadCascade(butterworthSections(kind, order, cutoffHz, sampleRate));
}
