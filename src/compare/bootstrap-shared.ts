import type { Interval } from '../domain/comparisons.js';
import { settings, type BootstrapResult } from './bootstrap-options.js';
import { isConstant, percentileInterval } from './bootstrap-parts.js';
import { strataOf, type Strata } from './bootstrap-strata.js';
import { drawResample, fusedRows, stateAfter, type FusedDraws } from './bootstrap-draws.js';
import {
  CHUNK,
  chunkOf,
  chunkSums,
  drawStratum,
  type Chunk,
  type Draws,
} from './bootstrap-chunks.js';

/*
 * One stratified bootstrap of pairs for many quantities at once. A comparison's score intervals
 * (overall, each scenario × persona case, each metric) all resample the same pairs: drawing them
 * once per resample and accumulating every quantity in the same pass costs one draw per pair
 * instead of one per pair and row. Each quantity's interval is still a percentile bootstrap of its
 * own statistic (the rows' resamples become correlated, which no row's interval minds):
 *
 * - quantity q over every pair: the mean of q over the drawn pairs that have it. A pair missing q
 *   (that metric not judged on both sides) is no outcome for it: it counts in neither the sum nor
 *   the count, so q's count varies by resample (a ratio estimator; with every pair having q it is
 *   exactly pairedBootstrap, draw for draw).
 * - quantity q of one group (a case row): the same, over that group's part of the resample, which
 *   is a bootstrap of that group alone. Groups of one pair are pooled for resampling
 *   (./bootstrap-strata.ts): their own rows take their one value, [d, d], as a group of one does.
 *
 * The generator is mulberry32 written out in the loop (seededRandom's numbers, in its order): the
 * loop runs some ten million draws for two executions of 1,000 simulations.
 */

/** One pair: its group and each quantity's difference (candidate − baseline), null when missing. */
export interface PairQuantities {
  group: string;
  values: readonly (number | null)[];
}

export interface SharedBootstrapOptions {
  seed: number;
  /** Quantities per pair (the length of every pair's `values`). */
  quantities: number;
  /** The first `grouped` quantities also get a result per group (default 0). */
  grouped?: number;
  confidence?: number;
  resamples?: number;
}

export interface SharedBootstrapResult {
  /** Per quantity, over every pair. */
  overall: BootstrapResult[];
  /** Per group: the first `grouped` quantities over that group's pairs. */
  groups: Map<string, BootstrapResult[]>;
}

/** The pairs laid out for the loop: per quantity, each pair's value (missing as 0) and presence. */
interface Layout {
  strata: Strata<PairQuantities>;
  values: Float64Array[];
  present: Float64Array[];
  /** Every pair has the quantity: its count is the resample's size, no presence to add. */
  complete: boolean[];
}

/** Missing sorts after every number; pairs compare by their values in quantity order. */
function byValues(a: PairQuantities, b: PairQuantities): number {
  for (let q = 0; q < a.values.length; q++) {
    const x = a.values[q] ?? Number.POSITIVE_INFINITY;
    const y = b.values[q] ?? Number.POSITIVE_INFINITY;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function layoutOf(pairs: readonly PairQuantities[], quantities: number): Layout {
  for (const p of pairs) {
    if (p.values.length !== quantities)
      throw new RangeError(`every pair needs ${quantities} values (group ${p.group})`);
    for (const v of p.values)
      if (v !== null && !Number.isFinite(v))
        throw new RangeError(`pair values must be finite numbers or null (group ${p.group})`);
  }
  const strata = strataOf(pairs, (p) => p.group, byValues);
  const column = (q: number, f: (v: number | null) => number) =>
    Float64Array.from(strata.items, (p) => f(p.values[q]!));
  const quantity = Array.from({ length: quantities }, (_, q) => q);
  return {
    strata,
    values: quantity.map((q) => column(q, (v) => v ?? 0)),
    present: quantity.map((q) => column(q, (v) => (v === null ? 0 : 1))),
    complete: quantity.map((q) => strata.items.every((p) => p.values[q] !== null)),
  };
}

/**
 * The resampled statistics: per quantity overall (q × R + r), and per grouped stratum × grouped
 * quantity ((s × G + q) × R + r): each row's resamples lie together, ready for its interval.
 */
export interface Resampled {
  overall: Float64Array;
  byStratum: Float64Array;
}

/** Quantities in chunks of four (the last padded with zeros); presence where some pair misses one. */
function chunksOf(layout: Layout, n: number) {
  const zero = new Float64Array(n);
  const chunks: { first: number; values: Chunk; present: Chunk | null }[] = [];
  for (let first = 0; first < layout.values.length; first += CHUNK) {
    const complete = layout.complete.slice(first, first + CHUNK).every(Boolean);
    chunks.push({
      first,
      values: chunkOf(layout.values, first, zero),
      present: complete ? null : chunkOf(layout.present, first, zero),
    });
  }
  return chunks;
}

interface Chunked {
  first: number;
  values: Chunk;
  present: Chunk | null;
}

/** The count of quantity `first + k` over the draws just summed (own) or all so far (running). */
const countOf = (present: Chunk | null, k: number, size: number, running: boolean) =>
  present ? (running ? present.running : present.own)[k]! : size;

/** A stratum's own results for the grouped quantities of a chunk just summed over it. */
function keepOwn(
  c: Chunked,
  size: number,
  sink: { out: Float64Array; G: number; R: number },
  at: number,
) {
  for (let q = c.first; q < Math.min(sink.G, c.first + CHUNK); q++)
    sink.out[at + q * sink.R] =
      c.values.own[q - c.first]! / countOf(c.present, q - c.first, size, false);
}

/**
 * The resamples. Each draws every pair once, summing the first four quantities as it draws
 * (drawStratum); the others are summed over the kept draws four at a time (stratum by stratum
 * where a group needs its own part), and counts too where some pairs miss a quantity. Nothing is
 * allocated per resample. Resamples [from, to) of the plan are drawn into `out`: the same numbers
 * whichever range a call draws, so threads may split the resamples between them.
 */
export function sharedDraws(plan: SharedPlan, out: Resampled, range: { from: number; to: number }) {
  const { layout, grouped: G, resamples: R } = plan;
  const { offsets, groups } = layout.strata;
  const n = layout.strata.items.length;
  const Q = layout.values.length;
  const S = offsets.length - 1;
  const sink = { out: out.byStratum, G, R };
  // Every resample draws n pairs: resample `from` starts n · from draws into the stream.
  const draws: Draws = { picks: new Int32Array(n), state: stateAfter(plan.seed, n * range.from) };
  const { picks } = draws;
  const chunks = chunksOf(layout, n);
  const first = chunks[0]!;
  // Chunks summed stratum by stratum (those holding a grouped quantity), past the first.
  const split = chunks.filter((c) => c.first > 0 && c.first < G);
  // The common case (the first four quantities complete, no more kept per group): one call a
  // resample (./bootstrap-draws.ts).
  const fused: FusedDraws | null =
    first.present === null && split.length === 0
      ? {
          rows: fusedRows(layout.values, n),
          offsets,
          keeps: Uint8Array.from(groups, (g) => (g === null ? 0 : 1)),
          G,
          R,
          picks,
          keepPicks: chunks.length > 1,
          running: first.values.running,
          byStratum: out.byStratum,
        }
      : null;
  for (let r = range.from; r < range.to; r++) {
    for (const c of chunks) {
      c.values.running.fill(0);
      c.present?.running.fill(0);
    }
    if (fused) draws.state = drawResample(fused, r, draws.state);
    else
      for (let s = 0; s < S; s++) {
        const from = offsets[s]!;
        const to = offsets[s + 1]!;
        drawStratum(first.values, draws, from, to);
        if (first.present) chunkSums(first.present, picks, from, to);
        for (let k = 0; k < split.length; k++) {
          chunkSums(split[k]!.values, picks, from, to);
          if (split[k]!.present) chunkSums(split[k]!.present!, picks, from, to);
        }
        if (G === 0 || groups[s] === null) continue;
        const at = s * G * R + r;
        keepOwn(first, to - from, sink, at);
        for (let k = 0; k < split.length; k++) keepOwn(split[k]!, to - from, sink, at);
      }
    for (const c of chunks) {
      // The first chunk was summed as it was drawn, the split ones stratum by stratum.
      if (c.first > 0 && c.first >= G) {
        chunkSums(c.values, picks, 0, n);
        if (c.present) chunkSums(c.present, picks, 0, n);
      }
      for (let q = c.first; q < Math.min(Q, c.first + CHUNK); q++)
        out.overall[q * R + r] =
          c.values.running[q - c.first]! / countOf(c.present, q - c.first, n, true);
    }
  }
}

/** The interval of one statistic's resamples, leaving out those where it had no pair (NaN). */
function intervalOf(resampled: Float64Array, confidence: number): Interval | null {
  let kept = 0;
  for (let i = 0; i < resampled.length; i++)
    if (!Number.isNaN(resampled[i]!)) resampled[kept++] = resampled[i]!;
  return kept === 0 ? null : percentileInterval(resampled.subarray(0, kept), confidence);
}

/** The result of quantity q over items [from, to) and its resamples (none: a group of one). */
function resultOf(
  layout: Layout,
  at: { q: number; from: number; to: number },
  resampled: Float64Array | null,
  confidence: number,
): BootstrapResult {
  const seen: number[] = [];
  for (let i = at.from; i < at.to; i++)
    if (layout.present[at.q]![i] === 1) seen.push(layout.values[at.q]![i]!);
  if (seen.length === 0) return { difference: null, interval: null };
  // Every pair alike: exactly [d, d] (a mean of copies need not give d back to the last bit).
  if (isConstant(seen)) return { difference: seen[0]!, interval: [seen[0]!, seen[0]!] };
  let sum = 0;
  for (const v of seen) sum += v;
  const difference = sum / seen.length;
  if (!resampled) return { difference, interval: [difference, difference] };
  return { difference, interval: intervalOf(resampled, confidence) };
}

/**
 * Percentile bootstraps of several paired quantities from one set of draws: `resamples` (default
 * 10,000) resamples drawing pairs with replacement within scenario × persona groups (groups of one
 * pooled), each quantity's mean over the drawn pairs that have it, its interval the (α/2, 1 − α/2)
 * type-7 quantiles. For one quantity every pair has, `overall[0]` equals pairedBootstrap's result
 * with the same seed exactly. Groups' results: the first `grouped` quantities within each group.
 */
export function sharedPairedBootstrap(
  pairs: readonly PairQuantities[],
  options: SharedBootstrapOptions,
): SharedBootstrapResult {
  const plan = sharedPlan(pairs, options);
  const out = resampledOf(plan);
  sharedDraws(plan, out, { from: 0, to: plan.resamples });
  return sharedResults(plan, out);
}

/** A shared bootstrap ready to draw: its pairs laid out and its settings, checked. */
export interface SharedPlan {
  layout: Layout;
  seed: number;
  grouped: number;
  resamples: number;
  confidence: number;
}

export function sharedPlan(
  pairs: readonly PairQuantities[],
  options: SharedBootstrapOptions,
): SharedPlan {
  const { confidence, resamples } = settings(options);
  const { quantities: Q, grouped: G = 0, seed } = options;
  if (!Number.isInteger(Q) || Q < 1 || !Number.isInteger(G) || G < 0 || G > Q)
    throw new RangeError(`quantities must be ≥ 1 and 0 ≤ grouped ≤ quantities`);
  return { layout: layoutOf(pairs, Q), seed, grouped: G, resamples, confidence };
}

/** The plan's resampled statistics, zeroed (in shared memory when `shared`: threads fill it). */
export function resampledOf(plan: SharedPlan, shared = false): Resampled {
  const { layout, grouped: G, resamples: R } = plan;
  const S = layout.strata.offsets.length - 1;
  const array = (length: number) =>
    new Float64Array(shared ? new SharedArrayBuffer(length * 8) : new ArrayBuffer(length * 8));
  return { overall: array(layout.values.length * R), byStratum: array(S * G * R) };
}

/** Every quantity's result (and each group's) from the plan's resamples, all drawn. */
export function sharedResults(plan: SharedPlan, out: Resampled): SharedBootstrapResult {
  const { layout, confidence, resamples, grouped: G } = plan;
  const Q = layout.values.length;
  const { strata } = layout;
  const n = strata.items.length;
  const overall = Array.from({ length: Q }, (_, q) =>
    resultOf(
      layout,
      { q, from: 0, to: n },
      out.overall.subarray(q * resamples, (q + 1) * resamples),
      confidence,
    ),
  );
  const groups = new Map<string, BootstrapResult[]>();
  strata.groups.forEach((group, s) => {
    const [from, to] = [strata.offsets[s]!, strata.offsets[s + 1]!];
    if (group !== null) {
      // Each stratum's resamples of quantity q lie together ((s × G + q) × R + r).
      const at = (q: number) =>
        out.byStratum.subarray((s * G + q) * resamples, (s * G + q + 1) * resamples);
      groups.set(
        group,
        Array.from({ length: G }, (_, q) => resultOf(layout, { q, from, to }, at(q), confidence)),
      );
      return;
    }
    for (let i = from; i < to; i++)
      groups.set(
        strata.items[i]!.group,
        Array.from({ length: G }, (_, q) =>
          resultOf(layout, { q, from: i, to: i + 1 }, null, confidence),
        ),
      );
  });
  return { overall, groups };
}
