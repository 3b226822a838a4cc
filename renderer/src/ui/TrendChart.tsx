import { Box, Typography } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';

/** A bucket of a trend as the engine answers it: its start and end, then its figures. */
interface Bucket {
  start: string;
  end: string;
}

/** One series of a trend: its label and its value in each bucket (null: nothing to measure). */
export interface TrendSeries {
  label: string;
  values: (number | null)[];
}

const HOUR = 3_600_000;

/** A bucket's label: its time within a day, its day and time within a week, else its date. */
function bucketLabel(bucket: Bucket, sizeMs: number): string {
  const at = new Date(bucket.end);
  if (sizeMs < HOUR * 6) return at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (sizeMs < HOUR * 24)
    return at.toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
  return at.toLocaleDateString([], { day: 'numeric', month: 'short' });
}

/**
 * A trend over a window, bucket by bucket: the count as bars, rates and latencies as lines (a
 * gap where a bucket had nothing to measure, never a zero that was not measured).
 */
export function TrendChart({
  label,
  buckets,
  count,
  rates,
  times,
}: {
  label: string;
  buckets: Bucket[];
  count: TrendSeries;
  rates: TrendSeries[];
  times: TrendSeries[];
}) {
  if (buckets.length === 0) return null;
  const size = Date.parse(buckets[0].end) - Date.parse(buckets[0].start);
  const labels = buckets.map((b) => bucketLabel(b, size));
  const total = count.values.reduce<number>((n, v) => n + (v ?? 0), 0);
  const xAxis = [{ scaleType: 'band' as const, data: labels }];
  const pointAxis = [{ scaleType: 'point' as const, data: labels }];
  return (
    <Box role="group" aria-label={label} sx={{ my: 1 }}>
      <Typography variant="subtitle2">
        {label}: {total} in {buckets.length} buckets
      </Typography>
      {total === 0 ? (
        <Typography variant="body2">Nothing in this window yet.</Typography>
      ) : (
        <>
          <BarChart
            height={150}
            // Drawn at once: a chart that grows in reads wrong until it ends (and in screenshots).
            skipAnimation
            xAxis={xAxis}
            series={[{ data: count.values.map((v) => v ?? 0), label: count.label }]}
          />
          <LineChart
            height={180}
            skipAnimation
            xAxis={pointAxis}
            yAxis={[
              { id: 'rate', min: 0, max: 100 },
              { id: 'ms', position: 'right', width: 60, min: 0 },
            ]}
            // Marks: a bucket between two empty ones is a point, with no line to draw.
            series={[
              ...rates.map((s) => ({
                data: s.values,
                label: s.label,
                yAxisId: 'rate',
                showMark: true,
              })),
              ...times.map((s) => ({
                data: s.values,
                label: s.label,
                yAxisId: 'ms',
                showMark: true,
              })),
            ]}
          />
        </>
      )}
    </Box>
  );
}
