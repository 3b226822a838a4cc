import type { OperationOutput } from '../../../src/operations/catalogue';
import { Box, Card, CardContent, Chip, Link, Stack, Typography } from '@mui/material';
import { fmtNum } from './common';
import type { Evidence } from './NumberedTurns';

/** A metric's result, as a simulation's or a call's evaluation carries it. */
export type MetricResult = NonNullable<
  OperationOutput<'calls.get'>['evaluation']
>['results'][number];
type Status = NonNullable<MetricResult['status']>;

const STATUS_COLOR: Record<Status, 'success' | 'error' | 'warning' | 'default'> = {
  passed: 'success',
  failed: 'error',
  error: 'warning',
  not_applicable: 'default',
};

/** Its status, for results stored before the status was recorded (as the engine derives it). */
export function statusOf(r: MetricResult): Status {
  if (r.status) return r.status;
  if (r.not_applicable) return 'not_applicable';
  if (r.error !== undefined) return 'error';
  return r.passed ? 'passed' : 'failed';
}

function Requirements({ items }: { items: NonNullable<MetricResult['requirements']> }) {
  return (
    <Box component="ul" aria-label="Requirements" sx={{ my: 0.5, pl: 2.5 }}>
      {items.map((q, i) => (
        <Typography component="li" variant="body2" key={i}>
          <b>{q.met ? '✓ met' : '✗ not met'}</b>: {q.text}
        </Typography>
      ))}
    </Box>
  );
}

/**
 * One metric's result: its status, score, the reasoning (and error), its requirements met or not,
 * and its evidence; a click on a piece of evidence shows it in the conversation.
 */
export function MetricResultCard({
  result: r,
  active,
  onEvidence,
}: {
  result: MetricResult;
  active: Evidence | null;
  onEvidence: (e: Evidence) => void;
}) {
  const status = statusOf(r);
  return (
    <Card variant="outlined" sx={{ mb: 1 }} component="article" aria-label={`Metric ${r.name}`}>
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography sx={{ fontWeight: 600 }}>{r.name}</Typography>
          <Chip size="small" label={status.replace('_', ' ')} color={STATUS_COLOR[status]} />
          <Typography>{fmtNum(r.score)}</Typography>
        </Stack>
        <Typography variant="caption">
          {r.category} · {r.type}
          {r.judge_model ? ` · judged by ${r.judge_model}` : ''}
        </Typography>
        <Typography variant="body2">{r.reasoning}</Typography>
        {r.error && (
          <Typography variant="body2" color="error">
            {r.error}
          </Typography>
        )}
        {r.requirements && r.requirements.length > 0 && <Requirements items={r.requirements} />}
        {(r.evidence ?? []).map((e, i) => (
          <Typography variant="body2" key={i}>
            <Link
              component="button"
              type="button"
              aria-pressed={active?.turn === e.turn && active.quote === e.quote}
              onClick={() => onEvidence(e)}
              sx={{ textAlign: 'left' }}
            >
              Turn {e.turn}: “{e.quote}”
            </Link>
          </Typography>
        ))}
      </CardContent>
    </Card>
  );
}
