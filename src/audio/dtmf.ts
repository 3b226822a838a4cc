/**
 * DTMF (touch-tone) digits as PCM16, for callers that press keys in an IVR. Each key is the sum
 * of one row and one column tone (ITU-T Q.23).
 */

export const DTMF_PATTERN = /^[0-9*#A-D]+$/;

const ROWS_HZ = [697, 770, 852, 941] as const;
const COLUMNS_HZ = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ['123A', '456B', '789C', '*0#D'] as const;

/** The row and column frequencies of one key. */
export function dtmfFrequencies(key: string): { rowHz: number; columnHz: number } {
  for (let row = 0; row < KEYPAD.length; row++) {
    const column = KEYPAD[row]!.indexOf(key);
    if (column >= 0 && key.length === 1) {
      return { rowHz: ROWS_HZ[row]!, columnHz: COLUMNS_HZ[column]! };
    }
  }
  throw new RangeError(`"${key}" is not a DTMF key (0-9, *, #, A-D)`);
}

export interface DtmfOptions {
  /** How long each key sounds; Q.24 receivers need at least 40 ms. Default 100. */
  toneMs?: number;
  /** Silence after each key. Default 100. */
  gapMs?: number;
  /** RMS level of each tone pair in dBFS. Default -10. */
  level?: number;
}

/** Fade in and out over this long: a tone that starts or stops abruptly clicks (a broadband splash). */
const FADE_MS = 5;

function writeKey(out: Int16Array, start: number, key: string, opts: KeyTone): void {
  const { rowHz, columnHz } = dtmfFrequencies(key);
  const { count, fade, sampleRate, amplitude } = opts;
  const rowStep = (2 * Math.PI * rowHz) / sampleRate;
  const columnStep = (2 * Math.PI * columnHz) / sampleRate;
  for (let i = 0; i < count; i++) {
    const edge = Math.min(i, count - 1 - i);
    const gain = edge < fade ? 0.5 - 0.5 * Math.cos((Math.PI * edge) / fade) : 1;
    const value = amplitude * gain * (Math.sin(rowStep * i) + Math.sin(columnStep * i));
    out[start + i] = Math.round(value);
  }
}

interface KeyTone {
  count: number;
  fade: number;
  sampleRate: number;
  /** Peak of each of the two sines. */
  amplitude: number;
}

/**
 * `digits` as DTMF at `sampleRate`: each key for `toneMs`, then `gapMs` of silence. Two equal
 * sines of peak A have an RMS of A (each contributes A^2/2), so A is the level's RMS directly;
 * at -10 dBFS the pair peaks at -4 dBFS, clear of clipping.
 */
export function dtmfTones(digits: string, sampleRate: number, opts: DtmfOptions = {}): Int16Array {
  if (!DTMF_PATTERN.test(digits)) {
    throw new RangeError(`"${digits}" is not a DTMF string (0-9, *, #, A-D)`);
  }
  const toneMs = opts.toneMs ?? 100;
  const gapMs = opts.gapMs ?? 100;
  const count = Math.round((toneMs * sampleRate) / 1000);
  const gap = Math.round((gapMs * sampleRate) / 1000);
  const tone: KeyTone = {
    count,
    fade: Math.min(Math.round((FADE_MS * sampleRate) / 1000), Math.floor(count / 2)),
    sampleRate,
    amplitude: 32768 * 10 ** ((opts.level ?? -10) / 20),
  };
  const out = new Int16Array(digits.length * (count + gap));
  for (let k = 0; k < digits.length; k++) writeKey(out, k * (count + gap), digits[k]!, tone);
  return out;
}
