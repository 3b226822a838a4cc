import type { OperationOutput } from '../../../../src/operations/catalogue';
import {
  Box,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { fmtNum } from '../../ui/common';
import { plural } from '../../ui/words';

type Production = NonNullable<OperationOutput<'agents.analytics'>['production']>;
interface Row {
  key: string;
  label: string;
  evaluated: number;
  passRate: number | null;
  avgScore: number | null;
}

/** A small table of evaluated calls, pass rate and score, one row per day or version. */
function FigureTable({ label, first, rows }: { label: string; first: string; rows: Row[] }) {
  return (
    <Table size="small" aria-label={label} sx={{ width: 'auto' }}>
      <TableHead>
        <TableRow>
          <TableCell>{first}</TableCell>
          <TableCell align="right">Calls</TableCell>
          <TableCell align="right">Pass rate</TableCell>
          <TableCell align="right">Avg score</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.key}>
            <TableCell>{r.label}</TableCell>
            <TableCell align="right">{r.evaluated}</TableCell>
            <TableCell align="right">{fmtNum(r.passRate, '%')}</TableCell>
            <TableCell align="right">{fmtNum(r.avgScore)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/**
 * The figures of the agent's scored calls (the last 30 days, the monitoring scorecard now in
 * force): pass rate and score overall, by day, by agent version and by category.
 */
export function ProductionFigures({ production }: { production: Production | null }) {
  if (!production)
    return (
      <Typography sx={{ mb: 2 }} aria-label="Production figures">
        No call scored yet: turn monitoring on below.
      </Typography>
    );
  const p = production;
  return (
    <Box component="section" aria-label="Production figures" sx={{ mb: 2 }}>
      <Typography sx={{ mb: 1 }}>
        Last 30 days: {plural(p.evaluated, 'call')} scored, {p.passed} passed · pass rate{' '}
        <b>{fmtNum(p.passRate, '%')}</b> · avg score <b>{fmtNum(p.avgScore)}</b>
      </Typography>
      <Stack direction="row" spacing={3} sx={{ alignItems: 'flex-start', flexWrap: 'wrap' }}>
        {p.byDay.length > 0 && (
          <BarChart
            height={180}
            width={Math.max(240, p.byDay.length * 48)}
            xAxis={[{ scaleType: 'band', data: p.byDay.map((d) => d.date.slice(5)) }]}
            yAxis={[{ min: 0, max: 100 }]}
            series={[{ data: p.byDay.map((d) => d.passRate), label: 'Pass rate by day (%)' }]}
          />
        )}
        <FigureTable
          label="By version"
          first="Version"
          rows={p.byVersion.map((v) => ({
            ...v,
            key: String(v.version),
            label: v.version === null ? 'before the first sync' : `v${v.version}`,
          }))}
        />
        {p.categoryBreakdown.length > 0 && (
          <Table size="small" aria-label="By category" sx={{ width: 'auto' }}>
            <TableHead>
              <TableRow>
                <TableCell>Category</TableCell>
                <TableCell align="right">Score</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {p.categoryBreakdown.map((c) => (
                <TableRow key={c.category}>
                  <TableCell>{c.category}</TableCell>
                  <TableCell align="right">{fmtNum(c.score)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </Stack>
    </Box>
  );
}
