/**
 * A small DTMF receiver for tests: Goertzel power at the eight DTMF frequencies over 20 ms
 * blocks, a key when one row and one column clearly dominate, and a key counted once per run of
 * blocks that agree (so a 100 ms tone is one digit, and a gap separates repeats).
 */

const ROWS_HZ = [697, 770, 852, 941];
const COLUMNS_HZ = [1209, 1336, 1477, 1633];
const KEYPAD = ['123A', '456B', '789C', '*0#D'];
const BLOCK_MS = 20;

/** Power of one frequency over a block (Goertzel's recurrence: one DFT bin, any frequency). */
function goertzelPower(pcm: Int16Array, from: number, to: number, coefficient: number): number {
  let s1 = 0;
  let s2 = 0;
  for (let i = from; i < to; i++) {
    const s0 = pcm[i]! / 32768 + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

function strongest(powers: number[]): { index: number; power: number; runnerUp: number } {
  let index = 0;
  for (let i = 1; i < powers.length; i++) if (powers[i]! > powers[index]!) index = i;
  const runnerUp = Math.max(...powers.filter((_, i) => i !== index));
  return { index, power: powers[index]!, runnerUp };
}

function blockKey(pcm: Int16Array, from: number, to: number, sampleRate: number): string | null {
  const power = (hz: number) =>
    goertzelPower(pcm, from, to, 2 * Math.cos((2 * Math.PI * hz) / sampleRate));
  const row = strongest(ROWS_HZ.map(power));
  const column = strongest(COLUMNS_HZ.map(power));
  let energy = 0;
  for (let i = from; i < to; i++) energy += (pcm[i]! / 32768) ** 2;
  // A sine of peak A over n samples gives Goertzel power (n A / 2)^2 and energy n A^2 / 2: the
  // two powers over (n / 2) * energy is the share of the block the key explains (1 when pure).
  const n = to - from;
  const share = (row.power + column.power) / ((n / 2) * energy + 1e-12);
  const clear = row.power > 6 * row.runnerUp && column.power > 6 * column.runnerUp;
  const twist = row.power / column.power;
  if (!clear || share < 0.6 || twist > 6 || twist < 1 / 6) return null;
  return KEYPAD[row.index]![column.index]!;
}

/** The DTMF keys heard in `pcm`, in order. */
export function detectDtmf(pcm: Int16Array, sampleRate: number): string {
  const block = Math.round((BLOCK_MS * sampleRate) / 1000);
  let keys = '';
  let previous: string | null = null;
  for (let from = 0; from + block <= pcm.length; from += block) {
    const key = blockKey(pcm, from, from + block, sampleRate);
    if (key !== null && key !== previous) keys += key;
    previous = key;
  }
  return keys;
}
