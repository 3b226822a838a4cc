/**
 * Sample-rate conversion by band-limited (windowed-sinc) interpolation, polyphase.
 *
 * One kernel serves both directions: its cutoff sits just under the Nyquist frequency of the
 * lower rate, so downsampling low-passes before decimating (16 kHz speech to an 8 kHz mu-law line
 * keeps no audible alias of the 4-8 kHz band) and upsampling interpolates without imaging. A
 * Kaiser window (beta 5, ~16 zero crossings a side) gives ~50 dB of stopband with a narrow enough
 * transition that a 3 kHz tone passes 16k->8k untouched.
 */

const ZERO_CROSSINGS = 16;
/** Cutoff as a fraction of the lower rate's Nyquist: leaves room for the transition band. */
const ROLLOFF = 0.92;
const KAISER_BETA = 5;
/** Beyond this many exact phases (odd rate pairs such as 44100->44099) phases are quantised. */
const MAX_PHASES = 1024;

interface Kernel {
  /** Output samples per `down` input samples (the reduced rate ratio). */
  up: number;
  down: number;
  phases: number;
  taps: number;
  /** Taps reach this many input samples back (minus one) and forward from the output point. */
  reach: number;
  /** `phases` rows of `taps` weights, each row summing to 1 (unity gain at DC). */
  table: Float32Array;
}

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50 && term > sum * 1e-12; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function buildKernel(fromRate: number, toRate: number): Kernel {
  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor;
  const down = fromRate / divisor;
  const cutoff = 0.5 * ROLLOFF * Math.min(1, up / down); // cycles per input sample
  const halfWidth = ZERO_CROSSINGS / (2 * cutoff);
  const reach = Math.ceil(halfWidth);
  const taps = 2 * reach;
  const phases = Math.min(up, MAX_PHASES);
  const table = new Float32Array(phases * taps);
  const windowNorm = besselI0(KAISER_BETA);
  for (let p = 0; p < phases; p++) {
    const row = new Float64Array(taps);
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      const d = p / phases + reach - 1 - j; // distance from the output point to this input
      const ratio = d / halfWidth;
      if (Math.abs(ratio) >= 1) continue;
      const x = 2 * cutoff * d;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const window = besselI0(KAISER_BETA * Math.sqrt(1 - ratio * ratio)) / windowNorm;
      row[j] = sinc * window;
      sum += row[j]!;
    }
    for (let j = 0; j < taps; j++) table[p * taps + j] = row[j]! / sum;
  }
  return { up, down, phases, taps, reach, table };
}

const kernels = new Map<string, Kernel>();

function kernelFor(fromRate: number, toRate: number): Kernel {
  const key = `${fromRate}:${toRate}`;
  let kernel = kernels.get(key);
  if (!kernel) {
    kernel = buildKernel(fromRate, toRate);
    kernels.set(key, kernel);
  }
  return kernel;
}

function checkRate(rate: number, name: string): void {
  if (!Number.isInteger(rate) || rate <= 0) {
    throw new RangeError(`${name} must be a positive whole number of Hz, got ${rate}`);
  }
}

/** Input samples held for rendering: `samples[0]` is input sample number `start` of `total`. */
interface Source {
  samples: Int16Array;
  start: number;
  total: number;
}

/** Renders output samples `first .. first + out.length - 1`, replicating the edge samples. */
function render(kernel: Kernel, source: Source, first: number, out: Int16Array): void {
  const { up, down, phases, taps, reach, table } = kernel;
  const { samples, start, total } = source;
  for (let i = 0; i < out.length; i++) {
    const position = (first + i) * down;
    let base = Math.floor(position / up);
    const remainder = position - base * up;
    let phase = phases === up ? remainder : Math.round((remainder * phases) / up);
    if (phase === phases) {
      phase = 0;
      base++;
    }
    const lowest = base - reach + 1;
    const row = phase * taps;
    let acc = 0;
    if (lowest >= 0 && lowest + taps <= total) {
      const offset = lowest - start;
      for (let j = 0; j < taps; j++) acc += table[row + j]! * samples[offset + j]!;
    } else {
      for (let j = 0; j < taps; j++) {
        const index = Math.min(total - 1, Math.max(0, lowest + j));
        acc += table[row + j]! * samples[index - start]!;
      }
    }
    out[i] = Math.max(-32768, Math.min(32767, Math.round(acc)));
  }
}

/**
 * Converts `pcm` from `fromRate` to `toRate` (whole Hz). Same rate returns the input itself; the
 * output has `round(length * toRate / fromRate)` samples. For a live stream cut into frames use
 * `Resampler`, which carries the filter's history across frame boundaries.
 */
export function resample(pcm: Int16Array, fromRate: number, toRate: number): Int16Array {
  checkRate(fromRate, 'fromRate');
  checkRate(toRate, 'toRate');
  if (fromRate === toRate) return pcm;
  const out = new Int16Array(Math.round((pcm.length * toRate) / fromRate));
  if (pcm.length === 0) return out;
  render(kernelFor(fromRate, toRate), { samples: pcm, start: 0, total: pcm.length }, 0, out);
  return out;
}

/**
 * Streaming `resample`: feed consecutive chunks, get the output that is ready so far (it lags
 * the input by the filter's reach, about 1-2 ms), and `end()` for the remainder. The
 * concatenated output equals `resample` of the concatenated input.
 */
export class Resampler {
  private readonly kernel: Kernel | null;
  private history = new Int16Array(0);
  private historyStart = 0;
  private received = 0;
  private produced = 0;

  constructor(
    private readonly fromRate: number,
    private readonly toRate: number,
  ) {
    checkRate(fromRate, 'fromRate');
    checkRate(toRate, 'toRate');
    this.kernel = fromRate === toRate ? null : kernelFor(fromRate, toRate);
  }

  push(pcm: Int16Array): Int16Array {
    if (!this.kernel) return pcm;
    const merged = new Int16Array(this.history.length + pcm.length);
    merged.set(this.history);
    merged.set(pcm, this.history.length);
    this.history = merged;
    this.received += pcm.length;
    const { up, down, reach } = this.kernel;
    // Output n needs input up to floor(n*down/up) + 1 + reach (the +1 covers phase rounding).
    const lastReady = this.received - 2 - reach;
    const ready = lastReady < 0 ? 0 : Math.floor((lastReady * up) / down) + 1;
    return this.emit(Math.max(this.produced, ready));
  }

  /** The output still held back for the filter's look-ahead; the stream is over. */
  end(): Int16Array {
    if (!this.kernel) return new Int16Array(0);
    const total = Math.round((this.received * this.toRate) / this.fromRate);
    return this.emit(Math.max(this.produced, total));
  }

  private emit(upTo: number): Int16Array {
    const kernel = this.kernel!;
    const out = new Int16Array(upTo - this.produced);
    if (out.length > 0 && this.received > 0) {
      const source = { samples: this.history, start: this.historyStart, total: this.received };
      render(kernel, source, this.produced, out);
    }
    this.produced = upTo;
    const keepFrom = Math.max(
      this.historyStart,
      Math.floor((this.produced * kernel.down) / kernel.up) - kernel.reach - 1,
    );
    this.history = this.history.slice(keepFrom - this.historyStart);
    this.historyStart = keepFrom;
    return out;
  }
}
