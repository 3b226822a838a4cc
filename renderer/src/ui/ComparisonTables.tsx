import {
  Box,
  Chip,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { AdjustedMark, AxisLegend, IntervalBars, VerdictChip } from './ComparisonBits';
import {
  caseName,
  pointsWords,
  scoreWords,
  runsNeededWords,
  type CaseRow,
  type MetricRow,
  type Stats,
} from './comparisonWords';
import { Explained } from './Explained';

const DIFF_HELP =
  "The candidate's pass rate minus the baseline's, in percentage points, with its 95% confidence interval";
const SCORE_HELP =
  'The mean change of paired scores (0 to 100), with its 95% bootstrap interval; it never makes the verdict';
const FLAKY_HELP = "A side's runs of this case disagree: some passed, some did not";
const ERRORED_HELP =
  'Simulations that failed, were cancelled or skipped: no outcome, so their pairs are left out';

/** The columns every statistics row shares: the bars, the difference, the score, the verdict. */
function StatsCells({ stats }: { stats: Stats }) {
  return (
    <>
      <TableCell>
        <IntervalBars baseline={stats.baseline} candidate={stats.candidate} />
      </TableCell>
      <TableCell>{pointsWords(stats.difference.value, stats.difference.interval)}</TableCell>
      <TableCell>{scoreWords(stats.score.difference, stats.score.interval)}</TableCell>
      <TableCell>
        <VerdictChip verdict={stats.verdict} />
        {runsNeededWords(stats) && (
          <Typography variant="caption" component="div">
            {runsNeededWords(stats)}
          </Typography>
        )}
        <AdjustedMark verdict={stats.verdict} adjusted={stats.adjusted_verdict} />
      </TableCell>
    </>
  );
}

function StatsHead({ first }: { first: string }) {
  return (
    <TableHead>
      <TableRow>
        <TableCell>{first}</TableCell>
        <TableCell>Pairs</TableCell>
        <TableCell>
          <Explained help="Each side's pass rate (the mark) and its 95% interval (the bar), on one 0–100% axis">
            Pass rates
          </Explained>
          <AxisLegend />
        </TableCell>
        <TableCell>
          <Explained help={DIFF_HELP}>Difference</Explained>
        </TableCell>
        <TableCell>
          <Explained help={SCORE_HELP}>Score change</Explained>
        </TableCell>
        <TableCell>Verdict</TableCell>
        {first === 'Case' && (
          <>
            <TableCell>
              <Explained help={FLAKY_HELP}>Flaky</Explained>
            </TableCell>
            <TableCell>
              <Explained help={ERRORED_HELP}>No outcome</Explained>
            </TableCell>
          </>
        )}
      </TableRow>
    </TableHead>
  );
}

function FlakyMarks({ flaky }: { flaky: CaseRow['flaky'] }) {
  if (!flaky.baseline && !flaky.candidate) return <>—</>;
  return (
    <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
      {flaky.baseline && <Chip size="small" variant="outlined" label="flaky baseline" />}
      {flaky.candidate && <Chip size="small" variant="outlined" label="flaky candidate" />}
    </Box>
  );
}

/**
 * The cases (scenario × persona), worst first as the engine sorts them; a row opens its paired
 * transcripts.
 */
export function CaseTable({ rows, onOpen }: { rows: CaseRow[]; onOpen: (row: CaseRow) => void }) {
  return (
    <Table size="small" aria-label="Cases">
      <StatsHead first="Case" />
      <TableBody>
        {rows.map((row) => (
          <TableRow
            key={`${row.scenario_id}/${row.persona_id}`}
            hover
            tabIndex={0}
            sx={{ cursor: 'pointer' }}
            aria-label={`${caseName(row)}: open the paired transcripts`}
            onClick={() => onOpen(row)}
            onKeyDown={(k) => k.key === 'Enter' && onOpen(row)}
          >
            <TableCell>{caseName(row)}</TableCell>
            <TableCell>{row.pairs}</TableCell>
            <StatsCells stats={row} />
            <TableCell>
              <FlakyMarks flaky={row.flaky} />
            </TableCell>
            <TableCell>
              {row.errored.baseline + row.errored.candidate === 0
                ? '—'
                : `baseline ${row.errored.baseline} · candidate ${row.errored.candidate}`}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Each scorecard metric (matched by name across the sides' scorecards). */
export function MetricTable({ rows }: { rows: MetricRow[] }) {
  return (
    <Table size="small" aria-label="Metrics">
      <StatsHead first="Metric" />
      <TableBody>
        {rows.map((row) => (
          <TableRow key={row.metric}>
            <TableCell>{row.metric}</TableCell>
            <TableCell>{row.pairs}</TableCell>
            <StatsCells stats={row} />
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
