import type { OutputOf } from '../../client';
import type { NumberedTurn } from '../callTurns';

/*
 * The review queue (#37): every judged result of a scorecard's llm_judge metrics, on simulations
 * and on scored calls, in the order a reviewer gets the most from: the judge's errors, then the
 * targets whose score is nearest the pass threshold (where a wrong verdict flips the outcome), then
 * the metrics whose judge agrees least with people. Pure: the screen loads, this orders.
 */

export type Simulation = OutputOf<'executions.simulations'>['simulations'][number];
export type MetricResult = Simulation['results'][number];
export type Review = OutputOf<'reviews.list'>['reviews'][number];
export type ReviewTarget = Review['target'];
export type Verdict = Review['verdict'];
export type MetricCalibration =
  OutputOf<'scorecards.calibration'>['calibration']['metrics'][number];

/** One target the judge scored: a simulation or a call, with its turns and results. */
export interface ReviewSource {
  target: ReviewTarget;
  /** What the reviewer reads in the queue: which scenario and persona, or which call. */
  title: string;
  /** The target's overall score on the scorecard (null: none). */
  score: number | null;
  results: MetricResult[];
  turns: NumberedTurn[];
}

/** One thing to label: a metric's result on one target. */
export interface ReviewItem {
  key: string;
  target: ReviewTarget;
  title: string;
  score: number | null;
  result: MetricResult;
  turns: NumberedTurn[];
}

/** One line of text, as the judge is shown it. */
const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/**
 * A simulation's turns as the judge read them (the engine's turnText, judge-transcript.ts): its
 * index, `Caller: ...` / `Agent: ...` with keypad digits, `[tool name {...} -> {...}]`.
 */
export function simulationTurns(turns: Simulation['turns']): NumberedTurn[] {
  return turns.map((t, index) => {
    const keys = t.dtmf ? ` [keypad ${t.dtmf}]` : '';
    const text =
      t.role === 'tool'
        ? `[tool ${t.tool?.name ?? 'unknown'} ${JSON.stringify(t.tool?.arguments ?? null)} -> ${JSON.stringify(t.tool?.result ?? null)}]`
        : `${t.role === 'caller' ? 'Caller' : 'Agent'}: ${oneLine(t.text)}${keys}`;
    return { index, role: t.role, text, atMs: t.at_ms };
  });
}

/** The one key of a label: its target and metric (as the engine keeps one label per both). */
export const labelKey = (target: ReviewTarget, metricId: string): string =>
  'callId' in target
    ? `call:${target.callId}:${metricId}`
    : `sim:${target.simulationId}:${metricId}`;

/** A result's status, derived for results scored before `status` was recorded. */
export function statusOf(r: MetricResult): NonNullable<MetricResult['status']> {
  if (r.status) return r.status;
  if (r.not_applicable) return 'not_applicable';
  if (r.error !== undefined) return 'error';
  return r.passed ? 'passed' : 'failed';
}

/** The results of the metrics under review (the scorecard's llm_judge metrics), one item each. */
export function itemsOf(sources: ReviewSource[], metricIds: ReadonlySet<string>): ReviewItem[] {
  return sources.flatMap((s) =>
    s.results
      .filter((r) => metricIds.has(r.metric_id))
      .map((result) => ({
        key: labelKey(s.target, result.metric_id),
        target: s.target,
        title: s.title,
        score: s.score,
        result,
        turns: s.turns,
      })),
  );
}

/**
 * Distance to the threshold in 5-point bands: scores within a few points of each other are as
 * close to flipping, so between them the metric's agreement decides.
 */
const BAND = 5;
const distanceBand = (score: number | null, threshold: number): number =>
  score === null ? Number.POSITIVE_INFINITY : Math.floor(Math.abs(score - threshold) / BAND);

export interface QueueOrder {
  passThreshold: number;
  /** Per metric id, the judge's agreement with people (0 to 1); null when too few labels. */
  agreement: ReadonlyMap<string, number | null>;
  /** Keys already labelled: they come after the rest, to be revisited rather than redone. */
  labelled: ReadonlySet<string>;
}

/** The queue in review order (stable: equal items keep the order they were loaded in). */
export function orderQueue(items: ReviewItem[], order: QueueOrder): ReviewItem[] {
  // An unknown agreement (too few labels) is the least known: it ranks as the lowest.
  const agreementOf = (id: string) => order.agreement.get(id) ?? -1;
  const ranked = items.map((item, i) => ({
    item,
    i,
    labelled: order.labelled.has(item.key) ? 1 : 0,
    error: statusOf(item.result) === 'error' ? 0 : 1,
    band: distanceBand(item.score, order.passThreshold),
    agreement: agreementOf(item.result.metric_id),
  }));
  // Compared, not subtracted: two unscored targets are both infinitely far (Infinity - Infinity).
  const compare = (x: number, y: number) => (x === y ? 0 : x < y ? -1 : 1);
  ranked.sort(
    (a, b) =>
      compare(a.labelled, b.labelled) ||
      compare(a.error, b.error) ||
      compare(a.band, b.band) ||
      compare(a.agreement, b.agreement) ||
      a.i - b.i,
  );
  return ranked.map((x) => x.item);
}

/** The latest label of each target and metric (the list answers the latest changed first). */
export function latestLabels(reviews: Review[]): Map<string, Review> {
  const latest = new Map<string, Review>();
  for (const r of reviews) {
    const key = labelKey(r.target, r.metricId);
    if (!latest.has(key)) latest.set(key, r);
  }
  return latest;
}
