import { bucketsOf, type Span, type ToolTrendBucket } from '../domain/trends.js';
import type { Store } from '../store/index.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A tool's calls over a span, bucket by bucket (empty buckets included, with null figures), so
 * that a chart shows when a tool got slow or began failing and not only that it did.
 */
export async function toolTrend(
  calls: Store['toolCalls'],
  toolId: string,
  span: Span,
): Promise<ToolTrendBucket[]> {
  const { size, starts } = bucketsOf(span);
  const found = new Map(
    (await calls.trend(toolId, span.from, span.to, size)).map((b) => [
      // The span's last instant belongs to the last bucket, as bucketIndex says.
      Math.min(b.bucket, starts.length - 1),
      b,
    ]),
  );
  return starts.map((start, i) => {
    const b = found.get(i);
    const count = b?.total ?? 0;
    return {
      start: iso(start),
      end: iso(Math.min(start + size, span.to)),
      count,
      successRate: b && count ? Math.round((10_000 * b.successes) / count) / 100 : null,
      p50ResponseTime: b?.p50 ?? null,
      p95ResponseTime: b?.p95 ?? null,
    };
  });
}
