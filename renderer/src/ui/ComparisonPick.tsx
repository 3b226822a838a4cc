import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Stack,
  TextField,
  Tooltip,
} from '@mui/material';
import { useId, useState } from 'react';
import type { OutputOf } from '../client';
import { client, useSession, wsInput } from '../stores/session';
import { ActionButton, ErrorNote, fmtDate, fmtNum, useAction, useLoad } from './common';
import { shortId } from './comparisonWords';
import { executionEnded } from './executionStatus';

type Execution = OutputOf<'executions.list'>['executions'][number];

/** Pages of the executions list read, at most, to find earlier runs (newest first, 100 a page). */
const MAX_PAGES = 10;

/** The workspace's ended executions, newest first (the ones a comparison takes). */
async function endedExecutions(stop?: (e: Execution) => boolean): Promise<Execution[]> {
  const found: Execution[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const { executions, pagination } = await client().invoke(
      'executions.list',
      wsInput({ limit: 100, offset: page * 100 }),
    );
    for (const e of executions) {
      if (!executionEnded(e.status)) continue;
      found.push(e);
      if (stop?.(e)) return found;
    }
    if (!pagination.has_more) break;
  }
  return found;
}

/** The newest ended execution of the same scenario made before this one: the baseline to beat. */
async function previousRun(execution: Execution): Promise<Execution | null> {
  const before = (e: Execution) =>
    e.id !== execution.id &&
    e.scenario_id === execution.scenario_id &&
    e.created_at < execution.created_at;
  return (await endedExecutions(before)).find(before) ?? null;
}

/** Makes a comparison and opens it. */
function useCompare() {
  const navigate = useSession((s) => s.navigate);
  return useAction(async (baseline: string[], candidate: string[], rescoreBaseline: boolean) => {
    const side = (ids: string[]) =>
      ids.length === 1 ? { executionId: ids[0] } : { executionIds: ids };
    const { comparison } = await client().invoke(
      'comparisons.create',
      wsInput({ baseline: side(baseline), candidate: side(candidate), rescoreBaseline }),
    );
    navigate(`comparisons/${comparison.id}`);
  });
}

/**
 * "Compare with previous run" on an execution's page: this execution as the candidate, the newest
 * ended one of its scenario before it as the baseline; disabled, saying why, when there is none.
 */
export function CompareWithPrevious({ execution }: { execution: Execution }) {
  const ended = executionEnded(execution.status);
  const previous = useLoad(
    () => (ended ? previousRun(execution) : Promise.resolve(null)),
    [execution, ended],
  );
  const compare = useCompare();
  const reason = !ended
    ? 'This execution is still running: compare it once it ends'
    : previous.loading
      ? 'Looking for an earlier run of this scenario…'
      : !previous.data
        ? 'No earlier ended execution of this scenario to compare with'
        : `Baseline: the run of ${fmtDate(previous.data.created_at)}`;
  const base = previous.data;
  return (
    <>
      <Tooltip title={reason} describeChild>
        {/* A disabled button hears no pointer: the span keeps its reason on hover. */}
        <span>
          <Button
            variant="outlined"
            disabled={!ended || !base || compare.busy}
            onClick={() => base && void compare.run([base.id], [execution.id], false)}
          >
            {compare.busy ? 'Comparing…' : 'Compare with previous run'}
          </Button>
        </span>
      </Tooltip>
      {ended && !previous.loading && !base && (
        <span data-testid="compare-unavailable" style={{ alignSelf: 'center' }}>
          {reason}
        </span>
      )}
      <ErrorNote error={compare.error ?? previous.error} />
    </>
  );
}

const optionLabel = (e: Execution) =>
  `${e.scenario_name ?? '(deleted scenario)'} · ${fmtDate(e.created_at)} · pass rate ${fmtNum(
    e.pass_rate,
    '%',
  )} · ${shortId(e.id)}`;

function ExecutionsField(props: {
  label: string;
  options: Execution[];
  value: string[];
  onChange: (ids: string[]) => void;
}) {
  return (
    <TextField
      select
      fullWidth
      label={props.label}
      value={props.value}
      helperText="One or several (several are pooled)"
      slotProps={{
        select: {
          multiple: true,
          renderValue: (ids) =>
            (ids as string[])
              .map((id) => props.options.find((e) => e.id === id))
              .map((e) => (e ? optionLabel(e) : ''))
              .join('; '),
        },
      }}
      onChange={(ev) => props.onChange(ev.target.value as unknown as string[])}
    >
      {props.options.map((e) => (
        <MenuItem key={e.id} value={e.id}>
          {optionLabel(e)}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** "Compare…": pick the baseline and the candidate executions (each pooled) among the ended ones. */
export function CompareDialogButton() {
  const [open, setOpen] = useState(false);
  const titleId = useId();
  const [baseline, setBaseline] = useState<string[]>([]);
  const [candidate, setCandidate] = useState<string[]>([]);
  const [rescore, setRescore] = useState(false);
  const options = useLoad(() => (open ? endedExecutions() : Promise.resolve([])), [open]);
  const compare = useCompare();
  const list = options.data ?? [];
  return (
    <>
      <Button variant="outlined" onClick={() => setOpen(true)}>
        Compare…
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        maxWidth="md"
        fullWidth
        aria-labelledby={titleId}
      >
        <DialogTitle id={titleId}>Compare executions</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>
            The baseline is what you have now; the candidate is the change you want to judge. Runs
            pair by scenario, persona, agent and run number.
          </DialogContentText>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <ExecutionsField
              label="Baseline executions"
              options={list}
              value={baseline}
              onChange={setBaseline}
            />
            <ExecutionsField
              label="Candidate executions"
              options={list}
              value={candidate}
              onChange={setCandidate}
            />
            <FormControlLabel
              control={
                <Checkbox checked={rescore} onChange={(e) => setRescore(e.target.checked)} />
              }
              label="Rescore baseline: score the baseline's transcripts again with the candidate's scorecard (stored results stay as they are)"
            />
          </Stack>
          <ErrorNote error={compare.error ?? options.error} />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <ActionButton
            busy={compare.busy}
            disabled={!baseline.length || !candidate.length}
            onClick={() => void compare.run(baseline, candidate, rescore)}
          >
            Compare
          </ActionButton>
        </DialogActions>
      </Dialog>
    </>
  );
}
