/*
 * Whole-number columns of the voice sums packed several to a float. A resample's sum of a column
 * is Σ weight · value over a side's calls; when every value is a whole number ≥ 0 that sum is a
 * whole number below calls × the largest value (the weights add up to the side's calls), so it
 * needs that many bits. Columns whose bits fit in 53 together share one float (value₀ + value₁ ·
 * 2^b₀ + …): summing the packed floats sums every field at once, exactly (each partial sum is a
 * whole number below 2^53, and no field carries into the next), and each field's sum is read back
 * as ⌊sum / 2^offset⌋ mod 2^bits. The sums are those of the columns summed one by one, bit for bit
 * (whole numbers below 2^53 add exactly in any order), for a third of the passes over the calls.
 */

/** Bits of a float's exact whole numbers. */
const EXACT_BITS = 53;

export interface PackedColumns {
  /** What is summed: the columns kept as they are, then the packed floats; padded to four. */
  summed: Float64Array[];
  /** Per column: the summed column it is in. */
  at: Int32Array;
  /** Per column: 2^offset within its packed float (1 and `mod` 0 when kept as it is). */
  scale: Float64Array;
  /** Per column: 2^bits of its field, or 0 when kept as it is. */
  mod: Float64Array;
}

/** The bits a column's sums need when packed; 0 when it cannot be (a fraction or below zero). */
function bitsOf(column: Float64Array): number {
  let max = 0;
  for (const v of column) {
    if (!(v >= 0 && Number.isInteger(v))) return 0;
    if (v > max) max = v;
  }
  // Sums lie in [0, calls · max]: the weights of a resample add up to the calls.
  const bound = column.length * max;
  return bound < 2 ** 48 ? Math.max(1, Math.ceil(Math.log2(bound + 1))) : 0;
}

/** The columns, whole-number ones packed first-fit into floats of 53 bits. */
export function packColumns(columns: readonly Float64Array[], calls: number): PackedColumns {
  const bits = columns.map(bitsOf);
  const lanes: { used: number; members: number[] }[] = [];
  const kept: number[] = [];
  columns.forEach((_, k) => {
    if (bits[k] === 0) return void kept.push(k);
    const lane = lanes.find((l) => l.used + bits[k]! <= EXACT_BITS);
    if (lane) lane.members.push(k);
    else lanes.push({ used: 0, members: [k] });
    (lane ?? lanes[lanes.length - 1]!).used += bits[k]!;
  });
  const at = new Int32Array(columns.length);
  const scale = new Float64Array(columns.length).fill(1);
  const mod = new Float64Array(columns.length);
  const summed = kept.map((k, j) => ((at[k] = j), columns[k]!));
  for (const lane of lanes) {
    const packed = new Float64Array(calls);
    let offset = 0;
    for (const k of lane.members) {
      const s = 2 ** offset;
      at[k] = summed.length;
      scale[k] = s;
      mod[k] = 2 ** bits[k]!;
      for (let i = 0; i < calls; i++) packed[i]! += columns[k]![i]! * s;
      offset += bits[k]!;
    }
    summed.push(packed);
  }
  while (summed.length % 4) summed.push(new Float64Array(calls));
  return { summed, at, scale, mod };
}

/** Each column's sum, into out[at + k], from the summed columns' sums in `sums`. */
export function unpackSums(p: PackedColumns, sums: Float64Array, out: Float64Array, at: number) {
  const { scale, mod } = p;
  for (let k = 0; k < scale.length; k++) {
    const sum = sums[p.at[k]!]!;
    out[at + k] = mod[k] === 0 ? sum : Math.floor(sum / scale[k]!) % mod[k]!;
  }
}
