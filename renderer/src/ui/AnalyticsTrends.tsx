import type { OutputOf } from '../client';
import { TrendChart } from './TrendChart';

type ToolBucket = OutputOf<'tools.analytics'>['trend'][number];
type AgentBucket = OutputOf<'agents.analytics'>['trend'][number];

/** A tool's calls over the window: how many, how many succeeded, how fast (p50, p95). */
export function ToolTrend({ trend }: { trend: ToolBucket[] }) {
  return (
    <TrendChart
      label="Calls over time"
      buckets={trend}
      count={{ label: 'Calls', values: trend.map((b) => b.count) }}
      rates={[{ label: 'Success %', values: trend.map((b) => b.successRate) }]}
      times={[
        { label: 'p50 ms', values: trend.map((b) => b.p50ResponseTime) },
        { label: 'p95 ms', values: trend.map((b) => b.p95ResponseTime) },
      ]}
    />
  );
}

/** An agent's simulations over the window: how many, how many passed, their score and length. */
export function AgentTrend({ trend }: { trend: AgentBucket[] }) {
  return (
    <TrendChart
      label="Simulations over time"
      buckets={trend}
      count={{ label: 'Simulations', values: trend.map((b) => b.count) }}
      rates={[
        { label: 'Pass %', values: trend.map((b) => b.passRate) },
        { label: 'Avg score', values: trend.map((b) => b.avgScore) },
      ]}
      times={[
        { label: 'p50 duration ms', values: trend.map((b) => b.p50DurationMs) },
        { label: 'p95 duration ms', values: trend.map((b) => b.p95DurationMs) },
      ]}
    />
  );
}
