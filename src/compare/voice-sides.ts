import { packColumns, type PackedColumns } from './voice-packing.js';
import { weightedTableOf, type EntryColumns, type WeightedTable } from './weighted-table.js';

/*
 * One side's calls laid out for the voice bootstrap (./voice-bootstrap.ts): calls ordered by
 * condition (noise × line), each condition's calls contiguous and in a canonical order (so the
 * order the store returned them in does not move an interval), the per-call measures as columns,
 * and the quantile tables. A call's weight in a resample is how often it was drawn.
 */

/** What one call contributes to the voice rows. */
export interface CallValues {
  /** Its condition (noise × line): the stratum it is resampled in, and its by-condition rows. */
  condition: string;
  /** Measures whose side statistic is the mean over calls (null: this call has none). */
  means: readonly (number | null)[];
  /** Measures whose side statistic is the type-7 median over calls. */
  medians: readonly (number | null)[];
  /** Values pooled over the side's calls (reply latencies), read by nearest-rank percentiles. */
  pooled: readonly number[];
  /** A ratio pooled over calls, [numerator, denominator] (WER: errors, words); null: none. */
  ratio: readonly [number, number] | null;
}

export interface SideLayout {
  calls: CallValues[];
  /** Per condition index: its calls are [from[c], to[c]) (empty when the side has none). */
  from: Int32Array;
  to: Int32Array;
  /** Resampling strata over the calls (offsets): a condition of one call is pooled (last). */
  strata: Int32Array;
  /**
   * Columns summed per condition: ones (the calls drawn), each mean measure's values (missing as
   * 0), the ratio's numerator and denominator, then the presence (1 or 0) of each mean measure
   * some call misses; padded with zeros to a multiple of four.
   */
  columns: Float64Array[];
  /** The columns as summed: whole-number ones packed several to a float (./voice-packing.ts). */
  packed: PackedColumns;
  /** Scratch for one condition's sums of the packed columns. */
  sums: Float64Array;
  /** Per mean measure: the column that counts it (ones, or its presence). */
  countAt: Int32Array;
  /** Scratch for the sums: the side's (all conditions), then each condition's. */
  scratch: Float64Array;
  /** Scratch for the summing loop's bounds. */
  range: Int32Array;
  medians: WeightedTable[];
  pooled: WeightedTable;
}

/** What a call measured, as one list: calls sort by it (missing before any number). */
const measured = (c: CallValues): (number | null)[] => [
  ...c.means,
  ...c.medians,
  c.ratio?.[0] ?? null,
  c.ratio?.[1] ?? null,
  c.pooled.length,
  ...c.pooled,
];

function byMeasured(x: readonly (number | null)[], y: readonly (number | null)[]): number {
  for (let i = 0; i < x.length; i++) {
    const u = x[i] ?? Number.NEGATIVE_INFINITY;
    const v = y[i] ?? Number.NEGATIVE_INFINITY;
    if (u !== v) return u < v ? -1 : 1;
  }
  return 0;
}

/** The side's calls in condition order: conditions of two or more calls first, then the rest. */
function ordered(calls: readonly CallValues[], conditions: readonly string[]) {
  const byCondition = conditions.map((key) =>
    calls
      .filter((c) => c.condition === key)
      .map((c) => ({ c, key: measured(c) }))
      .sort((a, b) => byMeasured(a.key, b.key))
      .map((x) => x.c),
  );
  const many = byCondition.flatMap((part, c) => (part.length > 1 ? [c] : []));
  const ones = byCondition.flatMap((part, c) => (part.length === 1 ? [c] : []));
  return { byCondition, order: [...many, ...ones], many: many.length };
}

function rangesOf(byCondition: CallValues[][], order: number[], many: number) {
  const from = new Int32Array(byCondition.length);
  const to = new Int32Array(byCondition.length);
  const strata = [0];
  let at = 0;
  order.forEach((c, k) => {
    from[c] = at;
    at += byCondition[c]!.length;
    to[c] = at;
    if (k < many) strata.push(at);
  });
  if (order.length > many) strata.push(at);
  return { from, to, strata: Int32Array.from(strata) };
}

function columnsOf(calls: readonly CallValues[], measures: number, conditions: number) {
  const column = (f: (c: CallValues) => number) => Float64Array.from(calls, f);
  const columns = [column(() => 1)];
  for (let m = 0; m < measures; m++) columns.push(column((c) => c.means[m] ?? 0));
  columns.push(column((c) => c.ratio?.[0] ?? 0));
  columns.push(column((c) => c.ratio?.[1] ?? 0));
  const countAt = new Int32Array(measures);
  for (let m = 0; m < measures; m++) {
    if (calls.every((c) => c.means[m] !== null)) continue;
    countAt[m] = columns.length;
    columns.push(column((c) => (c.means[m] === null ? 0 : 1)));
  }
  while (columns.length % 4) columns.push(new Float64Array(calls.length));
  const scratch = new Float64Array(columns.length * (conditions + 1));
  const packed = packColumns(columns, calls.length);
  const sums = new Float64Array(packed.summed.length);
  return { columns, countAt, scratch, range: new Int32Array(4), packed, sums };
}

/** Every call's values (none for null), as entry columns, in call order. */
function entriesOf(
  calls: readonly CallValues[],
  conditionOf: Int32Array,
  valuesOf: (c: CallValues) => readonly (number | null)[],
): EntryColumns {
  const values: number[] = [];
  const owners: number[] = [];
  const of: number[] = [];
  calls.forEach((c, call) => {
    for (const value of valuesOf(c)) {
      if (value === null) continue;
      values.push(value);
      owners.push(call);
      of.push(conditionOf[call]!);
    }
  });
  return {
    values: Float64Array.from(values),
    calls: Int32Array.from(owners),
    conditions: Int32Array.from(of),
  };
}

/** The side laid out over these conditions (every condition of both sides, in key order). */
export function sideLayout(
  calls: readonly CallValues[],
  conditions: readonly string[],
  shape: { means: number; medians: number },
): SideLayout {
  const { byCondition, order, many } = ordered(calls, conditions);
  const laid = order.flatMap((c) => byCondition[c]!);
  const index = new Map(conditions.map((key, c) => [key, c]));
  const conditionOf = Int32Array.from(laid, (c) => index.get(c.condition)!);
  const table = (values: (c: CallValues) => readonly (number | null)[]) =>
    weightedTableOf(entriesOf(laid, conditionOf, values), conditions.length);
  return {
    calls: laid,
    ...rangesOf(byCondition, order, many),
    ...columnsOf(laid, shape.means, conditions.length),
    medians: Array.from({ length: shape.medians }, (_, d) => table((c) => [c.medians[d] ?? null])),
    pooled: table((c) => c.pooled),
  };
}

/**
 * One resample of the side: each stratum draws its size in calls, index ⌊u · size⌋ of a
 * mulberry32 output u / 2³² (inlined), counting each call's draws in `weights`. Returns the
 * generator's state.
 */
export function drawWeights(weights: Float64Array, strata: Int32Array, state: number): number {
  weights.fill(0);
  let s = state;
  for (let g = 0; g + 1 < strata.length; g++) {
    const start = strata[g]!;
    const size = strata[g + 1]! - start;
    for (let k = 0; k < size; k++) {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = Math.imul(s ^ (s >>> 15), s | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      weights[start + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * size)]!++;
    }
  }
  return s;
}
