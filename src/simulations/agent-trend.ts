import {
  bucketIndex,
  bucketsOf,
  nearestRank,
  type AgentTrendBucket,
  type Span,
} from '../domain/trends.js';
import type { EndedForAgent } from '../store/simulations.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const round2 = (x: number): number => Math.round(100 * x) / 100;

/** One bucket's figures from its simulations, judged as the window's pass rate is. */
function bucketFigures(rows: EndedForAgent[]) {
  const judged = rows.filter((r) => r.passed !== null || r.status === 'failed').length;
  const passed = rows.filter((r) => r.passed === true).length;
  const scores = rows.map((r) => r.score).filter((s): s is number => s !== null);
  const durations = rows
    .map((r) => r.duration_ms)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  return {
    count: rows.length,
    passed,
    passRate: judged ? round2((100 * passed) / judged) : null,
    avgScore: scores.length ? round2(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
    p50DurationMs: nearestRank(durations, 0.5),
    p95DurationMs: nearestRank(durations, 0.95),
  };
}

/**
 * An agent's ended simulations over a span, bucket by bucket (empty ones included), from the rows
 * its analytics already read: no query of its own.
 */
export function agentTrend(rows: EndedForAgent[], span: Span): AgentTrendBucket[] {
  const { size, starts } = bucketsOf(span);
  const byBucket = starts.map((): EndedForAgent[] => []);
  for (const r of rows) byBucket[bucketIndex(Date.parse(r.at), span, size, starts.length)]!.push(r);
  return starts.map((start, i) => ({
    start: iso(start),
    end: iso(Math.min(start + size, span.to)),
    ...bucketFigures(byBucket[i]!),
  }));
}
