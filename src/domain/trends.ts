import { z } from 'zod';

/**
 * Analytics windows and the trend over one: the window a tester picks (last hour to all time),
 * cut into buckets sized to it, so that a chart of any window has a readable number of points.
 */

export const ANALYTICS_WINDOWS = ['1h', '24h', '7d', '30d', 'all'] as const;
export const AnalyticsWindow = z
  .enum(ANALYTICS_WINDOWS)
  .describe('Last hour, day, 7 days, 30 days, or all time; takes precedence over days');
export type AnalyticsWindow = z.infer<typeof AnalyticsWindow>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const WINDOW_MS: Record<Exclude<AnalyticsWindow, 'all'>, number> = {
  '1h': HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
  '30d': 30 * DAY,
};

/** Bucket sizes a trend may use, smallest first; a window takes the first giving few enough. */
const BUCKET_LADDER = [5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, DAY, 7 * DAY, 30 * DAY];
const MAX_BUCKETS = 60;

/** What an analytics request asks for: a number of days, or a named window that takes precedence. */
export interface WindowAsk {
  days: number;
  window?: AnalyticsWindow;
}

/** A window of time, [from, to] in epoch ms, and the label answers give it (`timeRange`). */
export interface Span {
  from: number;
  to: number;
  label: string;
}

/**
 * The span a request asks for: its `window` when given, else its `days`. All time starts at the
 * first record (`earliest`), or an hour before now when there is none.
 */
export function spanOf(
  ask: WindowAsk,
  now: number,
  earliest: () => Promise<number | null>,
): Promise<Span> | Span {
  if (!ask.window) return { from: now - ask.days * DAY, to: now, label: `${ask.days}d` };
  if (ask.window !== 'all')
    return { from: now - WINDOW_MS[ask.window], to: now, label: ask.window };
  return earliest().then((first) => ({
    from: Math.min(first ?? now - HOUR, now - HOUR),
    to: now,
    label: 'all',
  }));
}

/** The bucket size for a span: the smallest step that cuts it into at most MAX_BUCKETS. */
export function bucketSizeFor(spanMs: number): number {
  return BUCKET_LADDER.find((ms) => spanMs / ms <= MAX_BUCKETS) ?? Math.ceil(spanMs / MAX_BUCKETS);
}

/** The buckets of a span: [start, end) each, the last ending at the span's end. */
export function bucketsOf(span: Span): { size: number; starts: number[] } {
  const size = bucketSizeFor(span.to - span.from);
  const count = Math.max(1, Math.ceil((span.to - span.from) / size));
  return { size, starts: Array.from({ length: count }, (_, i) => span.from + i * size) };
}

/**
 * The bucket a time falls in: each holds its end and not its start (the first also holds the
 * span's start), so that the span's last instant, now, is in the last bucket.
 */
export const bucketIndex = (at: number, span: Span, size: number, count: number): number =>
  Math.min(count - 1, Math.max(0, Math.ceil((at - span.from) / size) - 1));

const Iso = z.string().describe('ISO 8601 time');

/** One bucket of a tool's trend: its calls and how they went. */
export const ToolTrendBucket = z.object({
  start: Iso,
  end: Iso,
  count: z.number().int(),
  successRate: z.number().nullable().describe('Percent of the calls that succeeded; null: none'),
  p50ResponseTime: z.number().nullable().describe('ms, nearest rank; null: no calls'),
  p95ResponseTime: z.number().nullable().describe('ms, nearest rank; null: no calls'),
});
export type ToolTrendBucket = z.infer<typeof ToolTrendBucket>;

/** One bucket of an agent's trend: its ended simulations and how they were judged. */
export const AgentTrendBucket = z.object({
  start: Iso,
  end: Iso,
  count: z.number().int().describe('Ended simulations'),
  passed: z.number().int(),
  passRate: z
    .number()
    .nullable()
    .describe('Percent of judged simulations that passed (errored count as not); null: none'),
  avgScore: z.number().nullable(),
  p50DurationMs: z.number().nullable().describe('Simulation duration, nearest rank'),
  p95DurationMs: z.number().nullable().describe('Simulation duration, nearest rank'),
});
export type AgentTrendBucket = z.infer<typeof AgentTrendBucket>;

/** The nearest-rank percentile of sorted values (rank ceil(p n)), as the store computes p95. */
export function nearestRank(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
