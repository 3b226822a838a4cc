/*
 * Quantiles of a resample without sorting it. A side's values (each call's time to first audio,
 * or every reply latency of every call) are sorted once, per condition (noise × line), each value
 * knowing the call it came from. A resample is the number of times each call was drawn (its
 * weight): a condition's weights summed block by block (16 values a block) along its sorted values
 * find any rank by a binary search over the blocks and a scan within one, and the whole side's
 * rank is found over the conditions merged (a merged position's count is the sum of each
 * condition's count before it). Weights are draw counts, so every sum is exact in any order.
 */

/** Values a block: its sums are four independent additions a step, its scans short. */
const BLOCK = 16;

export interface WeightedTable {
  /** Per condition: its values ascending and the call (index) each came from. */
  values: Float64Array[];
  owners: Int32Array[];
  /** Per condition: blocks[b] = the weight of its values before block b, set by `accumulate`. */
  blocks: Float64Array[];
  /** The calls' weights `accumulate` was given (the scans within a block read them). */
  weights: Float64Array;
  /** Every value ascending (conditions merged). */
  merged: Float64Array;
  /** Per condition: before[p] = how many of its values lie in merged[0 .. p). */
  before: Int32Array[];
}

/** One value of the table: what it is, the call it came from, and that call's condition. */
export interface Entry {
  value: number;
  call: number;
  condition: number;
}

/** The table of these entries over `conditions` conditions. */
export function weightedTable(entries: readonly Entry[], conditions: number): WeightedTable {
  return weightedTableOf(
    {
      values: Float64Array.from(entries, (e) => e.value),
      calls: Int32Array.from(entries, (e) => e.call),
      conditions: Int32Array.from(entries, (e) => e.condition),
    },
    conditions,
  );
}

/** Entries as columns: entry i is values[i], from call calls[i] of condition conditions[i]. */
export interface EntryColumns {
  values: Float64Array;
  calls: Int32Array;
  conditions: Int32Array;
}

/** weightedTable of entries given as columns (no object per entry: a side has thousands). */
export function weightedTableOf(entries: EntryColumns, conditions: number): WeightedTable {
  const { values, calls, conditions: of } = entries;
  const n = values.length;
  // Ascending by value, then condition, then entry (a total order: the same table every time).
  const sorted = new Int32Array(n).map((_, i) => i);
  sorted.sort((a, b) => values[a]! - values[b]! || of[a]! - of[b]! || a - b);
  const sizes = new Int32Array(conditions);
  for (let i = 0; i < n; i++) sizes[of[i]!]!++;
  const parts = Array.from(sizes, (size) => ({
    values: new Float64Array(size),
    owners: new Int32Array(size),
  }));
  const before = parts.map(() => new Int32Array(n + 1));
  const seen = new Int32Array(conditions);
  for (let p = 0; p < n; p++) {
    const e = sorted[p]!;
    const c = of[e]!;
    parts[c]!.values[seen[c]!] = values[e]!;
    parts[c]!.owners[seen[c]!] = calls[e]!;
    seen[c]!++;
    for (let k = 0; k < conditions; k++) before[k]![p + 1] = seen[k]!;
  }
  return {
    values: parts.map((part) => part.values),
    owners: parts.map((part) => part.owners),
    blocks: parts.map((part) => new Float64Array(Math.ceil(part.values.length / BLOCK) + 1)),
    weights: new Float64Array(0),
    merged: Float64Array.from(sorted, (e) => values[e]!),
    before,
  };
}

/** Sums each condition's weights block by block, from the calls' weights (draw counts). */
export function accumulate(table: WeightedTable, weights: Float64Array): void {
  table.weights = weights;
  for (let c = 0; c < table.blocks.length; c++) {
    const blocks = table.blocks[c]!;
    const owners = table.owners[c]!;
    let total = 0;
    for (let b = 0; b + 1 < blocks.length; b++) {
      const end = Math.min(owners.length, (b + 1) * BLOCK);
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = b * BLOCK;
      for (; j + 3 < end; j += 4) {
        s0 += weights[owners[j]!]!;
        s1 += weights[owners[j + 1]!]!;
        s2 += weights[owners[j + 2]!]!;
        s3 += weights[owners[j + 3]!]!;
      }
      for (; j < end; j++) s0 += weights[owners[j]!]!;
      total += s0 + s1 + s2 + s3;
      blocks[b + 1] = total;
    }
  }
}

/** The total weight of a condition's values (its resample's count). */
export const totalOf = (table: WeightedTable, condition: number): number =>
  table.blocks[condition]![table.blocks[condition]!.length - 1]!;

/** The total weight of every value. */
export function overallTotal(table: WeightedTable): number {
  let total = 0;
  for (let c = 0; c < table.blocks.length; c++) total += totalOf(table, c);
  return total;
}

/** The weight of a condition's first j values. */
function weightBefore(table: WeightedTable, condition: number, j: number): number {
  const owners = table.owners[condition]!;
  const b = Math.floor(j / BLOCK);
  let sum = table.blocks[condition]![b]!;
  for (let i = b * BLOCK; i < j; i++) sum += table.weights[owners[i]!]!;
  return sum;
}

/** The value of 0-based rank k (k < its total) in a condition's resample. */
export function kthOf(table: WeightedTable, condition: number, k: number): number {
  const blocks = table.blocks[condition]!;
  // The first block whose weight, with those before it, exceeds k; then the value within it.
  let lo = 0;
  let hi = blocks.length - 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blocks[mid + 1]! > k) hi = mid;
    else lo = mid + 1;
  }
  const owners = table.owners[condition]!;
  let sum = blocks[lo]!;
  let j = lo * BLOCK;
  while ((sum += table.weights[owners[j]!]!) <= k) j++;
  return table.values[condition]![j]!;
}

/** The value of 0-based rank k (k < the total) in the whole side's resample. */
export function kthOverall(table: WeightedTable, k: number): number {
  const { merged, before } = table;
  // The first merged position p whose count of values up to and including it exceeds k.
  let lo = 0;
  let hi = merged.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let count = 0;
    for (let c = 0; c < before.length; c++) count += weightBefore(table, c, before[c]![mid + 1]!);
    if (count > k) hi = mid;
    else lo = mid + 1;
  }
  return merged[lo]!;
}

/** Which resample a quantile reads: a condition's (its index) or the whole side's (-1). */
const kth = (table: WeightedTable, which: number, k: number) =>
  which < 0 ? kthOverall(table, k) : kthOf(table, which, k);

const weightOf = (table: WeightedTable, which: number) =>
  which < 0 ? overallTotal(table) : totalOf(table, which);

/**
 * The nearest-rank q-th percentile (0 < q ≤ 100) of the weighted values, as the execution's
 * audio figures take it: the value of rank ⌈q/100 · total⌉ (at least 1). NaN with no weight.
 */
export function nearestRank(table: WeightedTable, which: number, q: number): number {
  const total = weightOf(table, which);
  if (total === 0) return Number.NaN;
  return kth(table, which, Math.max(1, Math.ceil((q / 100) * total)) - 1);
}

/** The type-7 q-quantile (0 ≤ q ≤ 1) of the weighted values, as `percentile(q)` gives it. */
export function type7(table: WeightedTable, which: number, q: number): number {
  const total = weightOf(table, which);
  if (total === 0) return Number.NaN;
  const h = (total - 1) * q;
  const lo = Math.floor(h);
  const fraction = h - lo;
  const atLo = kth(table, which, lo);
  if (fraction === 0) return atLo;
  const atHi = kth(table, which, lo + 1);
  return atHi === atLo ? atLo : atLo + fraction * (atHi - atLo);
}
