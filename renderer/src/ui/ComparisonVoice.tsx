import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { VerdictChip } from './ComparisonBits';
import {
  MEASURES,
  measureDifference,
  measureValue,
  type Comparison,
  type VoiceRow,
} from './comparisonWords';
import { Explained } from './Explained';

const LOWER_HELP =
  'Lower is better: a rise is a regression once its whole interval passes the minimum effect (50 ms for times, 0.1 per call for counts, 1 point of word error rate)';

/** One table of voice measures (overall, or one noise × line). */
function VoiceTable({ rows, label }: { rows: VoiceRow[]; label: string }) {
  return (
    <Table size="small" aria-label={label}>
      <TableHead>
        <TableRow>
          <TableCell>Measure</TableCell>
          <TableCell>Baseline</TableCell>
          <TableCell>Candidate</TableCell>
          <TableCell>
            <Explained help="Candidate minus baseline, with its 95% bootstrap interval over calls">
              Difference
            </Explained>
          </TableCell>
          <TableCell>Calls (baseline · candidate)</TableCell>
          <TableCell>Verdict</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((row) => (
          <TableRow key={row.measure}>
            <TableCell>
              {MEASURES[row.measure].label}{' '}
              <Explained help={LOWER_HELP}>
                <span aria-label="lower is better">↓</span>
              </Explained>
            </TableCell>
            <TableCell>{measureValue(row.measure, row.baseline)}</TableCell>
            <TableCell>{measureValue(row.measure, row.candidate)}</TableCell>
            <TableCell>{measureDifference(row)}</TableCell>
            <TableCell>
              {row.calls.baseline} · {row.calls.candidate}
            </TableCell>
            <TableCell>
              <VerdictChip verdict={row.verdict} />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Voice measures (both sides made audio calls): overall, then by the caller's noise × line. */
export function VoiceSection({ voice }: { voice: NonNullable<Comparison['voice']> }) {
  return (
    <Box component="section" aria-label="Voice" sx={{ mb: 3 }}>
      <Typography variant="h6" component="h2">
        Voice
      </Typography>
      <VoiceTable rows={voice.rows} label="Voice measures, all calls" />
      {voice.by_conditions.map((group) => (
        <Box key={`${group.noise}/${group.line}`} sx={{ mt: 2 }}>
          <Typography variant="subtitle1" component="h3">
            Noise {group.noise.replace(/_/g, ' ')} · line {group.line.replace(/_/g, ' ')}
          </Typography>
          <VoiceTable
            rows={group.rows}
            label={`Voice measures, noise ${group.noise}, line ${group.line}`}
          />
        </Box>
      ))}
    </Box>
  );
}
