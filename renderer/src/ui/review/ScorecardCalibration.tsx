import {
  Alert,
  Box,
  Button,
  Chip,
  Link,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { ws } from '../../stores/session';
import { ErrorNote, fmtNum, useLoad } from '../common';
import { plural } from '../words';
import { loadCalibration } from './reviewData';
import { labelKey, type MetricCalibration } from './reviewQueue';

/*
 * A scorecard's judge calibration (#37): per llm_judge metric, how far the judge agrees with the
 * people who labelled its results, with the confusion table, the disagreements and whether the
 * figures still describe the judge in force.
 */

type Disagreement = MetricCalibration['disagreements'][number];

const STATUS_WORDS: Record<MetricCalibration['status'], string> = {
  insufficient_data: 'insufficient data (under 10 labels)',
  provisional: 'provisional (10 to 49 labels)',
  calibrated: 'calibrated (50 labels or more)',
  stale: 'stale: the judge or the rubric changed since these labels',
};

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);

function Confusion({ metric }: { metric: MetricCalibration }) {
  const c = metric.confusion;
  return (
    <Table size="small" aria-label={`Confusion of ${metric.name}`} sx={{ width: 'auto' }}>
      <TableHead>
        <TableRow>
          <TableCell />
          <TableCell>Human pass</TableCell>
          <TableCell>Human fail</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        <TableRow>
          <TableCell component="th">Judge pass</TableCell>
          <TableCell aria-label="Both pass">{c.both_pass}</TableCell>
          <TableCell aria-label="Judge pass, human fail">{c.judge_pass_human_fail}</TableCell>
        </TableRow>
        <TableRow>
          <TableCell component="th">Judge fail</TableCell>
          <TableCell aria-label="Judge fail, human pass">{c.judge_fail_human_pass}</TableCell>
          <TableCell aria-label="Both fail">{c.both_fail}</TableCell>
        </TableRow>
      </TableBody>
    </Table>
  );
}

function DisagreementLine({
  d,
  metricId,
  onReview,
}: {
  d: Disagreement;
  metricId: string;
  onReview: (focus: string) => void;
}) {
  const what = 'callId' in d.target ? 'Call' : 'Simulation';
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'baseline' }}>
      <Typography variant="body2">
        Judge: {d.judge}, {d.reviewer.name}: {d.human}
        {d.note ? ` — ${d.note}` : ''}
      </Typography>
      {'simulationId' in d.target && (
        <Link variant="body2" href={`#/simulations/${d.target.simulationId}`}>
          Open simulation
        </Link>
      )}
      <Link
        component="button"
        variant="body2"
        onClick={() => onReview(labelKey(d.target, metricId))}
      >
        Review this {what.toLowerCase()}
      </Link>
    </Stack>
  );
}

function JudgeLine({ metric }: { metric: MetricCalibration }) {
  const modelChanged = metric.judge_model !== metric.judge_model_in_force;
  const rubricChanged =
    metric.rubric_hash !== null && metric.rubric_hash !== metric.rubric_hash_in_force;
  return (
    <Typography variant="caption" color="text.secondary">
      Judge model: {metric.judge_model ?? '—'}
      {modelChanged && metric.labels > 0 ? ` (now ${metric.judge_model_in_force ?? 'none'})` : ''}
      {rubricChanged ? ' · the criterion or requirements changed since' : ''}
    </Typography>
  );
}

function MetricCard(props: { metric: MetricCalibration; onReview: (focus?: string) => void }) {
  const { metric, onReview } = props;
  return (
    <Paper
      variant="outlined"
      sx={{ p: 2 }}
      role="group"
      aria-label={`Calibration of ${metric.name}`}
    >
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="subtitle1">{metric.name}</Typography>
        <Chip
          size="small"
          label={STATUS_WORDS[metric.status]}
          color={
            metric.status === 'stale'
              ? 'warning'
              : metric.status === 'calibrated'
                ? 'success'
                : 'default'
          }
          variant="outlined"
        />
      </Stack>
      <Typography variant="body2" aria-label="Calibration figures">
        {plural(metric.labels, 'label')} · agreement {pct(metric.agreement)} · kappa{' '}
        {fmtNum(metric.kappa)}
      </Typography>
      <JudgeLine metric={metric} />
      <Stack direction="row" spacing={3} sx={{ mt: 1, alignItems: 'flex-start' }}>
        <Confusion metric={metric} />
        <Box sx={{ flex: 1 }} aria-label={`Disagreements on ${metric.name}`} role="list">
          {metric.disagreements.length === 0 && (
            <Typography variant="body2" color="text.secondary">
              No disagreement.
            </Typography>
          )}
          {metric.disagreements.map((d, i) => (
            <Box role="listitem" key={i}>
              <DisagreementLine d={d} metricId={metric.metric_id} onReview={onReview} />
            </Box>
          ))}
        </Box>
      </Stack>
    </Paper>
  );
}

/** The calibration region of one scorecard, with the way into its review. */
export function ScorecardCalibration({
  scorecard,
  onReview,
}: {
  scorecard: { id: string; name: string };
  onReview: (focus?: string) => void;
}) {
  const { data, error } = useLoad(
    () => loadCalibration({ workspaceId: ws(), scorecardId: scorecard.id }),
    [scorecard.id],
  );
  return (
    <Box component="section" aria-label={`Calibration of ${scorecard.name}`} sx={{ mt: 3 }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="h6">Judge calibration: {scorecard.name}</Typography>
        <Button variant="contained" onClick={() => onReview()}>
          Review results
        </Button>
      </Stack>
      <ErrorNote error={error} />
      {data?.length === 0 && (
        <Alert severity="info">No llm_judge metric: there is no judge to calibrate.</Alert>
      )}
      <Stack spacing={2}>
        {data?.map((m) => (
          <MetricCard key={m.metric_id} metric={m} onReview={onReview} />
        ))}
      </Stack>
    </Box>
  );
}
