import { Alert, Box, Button, Chip, Link, Stack, TextField, Typography } from '@mui/material';
import { plural } from '../words';
import { fmtNum, StatusChip } from '../common';
import type { Evidence } from '../NumberedTurns';
import {
  statusOf,
  type MetricCalibration,
  type Review,
  type ReviewItem,
  type Verdict,
} from './reviewQueue';

/*
 * The metric under review beside the transcript: the judge's verdict, reasoning, requirements and
 * evidence, the label so far, and the three verdicts with their keys.
 */

export const VERDICTS: { verdict: Verdict; key: string; words: string }[] = [
  { verdict: 'pass', key: 'p', words: 'Pass' },
  { verdict: 'fail', key: 'f', words: 'Fail' },
  { verdict: 'not_applicable', key: 'n', words: 'Not applicable' },
];
const verdictWords = (v: Verdict) => VERDICTS.find((x) => x.verdict === v)!.words;

function JudgeVerdict({
  item,
  onEvidence,
}: {
  item: ReviewItem;
  onEvidence: (e: Evidence) => void;
}) {
  const r = item.result;
  return (
    <Stack spacing={1} aria-label="Judge's verdict" role="group">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography variant="h6">{r.name}</Typography>
        <StatusChip value={statusOf(r)} />
        <Typography variant="body2">score {fmtNum(r.score)}</Typography>
      </Stack>
      {r.error && <Alert severity="error">{r.error}</Alert>}
      <Typography variant="body2">{r.reasoning}</Typography>
      {r.requirements && (
        <Box component="ul" sx={{ m: 0, pl: 3 }} aria-label="Requirements">
          {r.requirements.map((q, i) => (
            <li key={i}>
              <Typography variant="body2">
                {q.met ? '✓ met' : '✗ not met'}: {q.text}
              </Typography>
            </li>
          ))}
        </Box>
      )}
      {(r.evidence ?? []).map((e, i) => (
        <Link
          key={i}
          component="button"
          variant="body2"
          onClick={() => onEvidence(e)}
          sx={{ alignSelf: 'flex-start', textAlign: 'left' }}
        >
          Turn {e.turn}: “{e.quote}”
        </Link>
      ))}
      <Typography variant="caption" color="text.secondary">
        {item.title} · target score {fmtNum(item.score)}
        {r.judge_model ? ` · judge ${r.judge_model}` : ''}
      </Typography>
    </Stack>
  );
}

function LabelSoFar({ label, saving, failure }: LabelState) {
  if (saving) return <Chip size="small" label={`Saving: ${verdictWords(saving)}…`} />;
  return (
    <>
      {failure && (
        <Alert severity="error" role="alert">
          Not saved: {failure}
        </Alert>
      )}
      {label ? (
        <Typography variant="body2" aria-label="Label">
          Labelled <b>{verdictWords(label.verdict)}</b> by {label.reviewer.name}
          {label.note ? ` — ${label.note}` : ''}
        </Typography>
      ) : (
        <Typography variant="body2" color="text.secondary" aria-label="Label">
          Not labelled yet
        </Typography>
      )}
    </>
  );
}

interface LabelState {
  label: Review | undefined;
  saving: Verdict | undefined;
  failure: string | undefined;
}

function CalibrationLine({ metric }: { metric: MetricCalibration | undefined }) {
  if (!metric) return null;
  const agreement = metric.agreement === null ? '—' : `${Math.round(metric.agreement * 100)}%`;
  return (
    <Typography variant="caption" color="text.secondary" aria-label="Metric calibration">
      {plural(metric.labels, 'label')} · agreement {agreement} · kappa {fmtNum(metric.kappa)} ·{' '}
      {metric.status.replace(/_/g, ' ')}
    </Typography>
  );
}

/** The metric, its label, the note and the verdict buttons (the same as the keys). */
export function ReviewMetricPanel(props: {
  item: ReviewItem;
  labelState: LabelState;
  calibration: MetricCalibration | undefined;
  note: string;
  onNote: (note: string) => void;
  onLabel: (verdict: Verdict) => void;
  /** A piece of evidence chosen: its turn shown, the quote marked. */
  onEvidence: (e: Evidence) => void;
}) {
  const { item, labelState, note, onNote, onLabel } = props;
  return (
    <Stack spacing={2} sx={{ overflowY: 'auto', minHeight: 0, flex: 1, p: 2 }}>
      <JudgeVerdict item={item} onEvidence={props.onEvidence} />
      <CalibrationLine metric={props.calibration} />
      <LabelSoFar {...labelState} />
      <TextField
        label="Note (optional)"
        value={note}
        multiline
        minRows={2}
        helperText="Keys typed here stay in the note; Esc leaves the note for the shortcuts."
        onChange={(e) => onNote(e.target.value)}
        onKeyDown={(e) => {
          // Esc leaves the field (the shortcuts work again) instead of closing the review.
          if (e.key === 'Escape') {
            e.stopPropagation();
            (e.target as HTMLElement).blur();
          }
        }}
      />
      <Stack direction="row" spacing={1}>
        {VERDICTS.map((v) => (
          <Button key={v.verdict} variant="outlined" onClick={() => onLabel(v.verdict)}>
            {v.words} ({v.key})
          </Button>
        ))}
      </Stack>
    </Stack>
  );
}
