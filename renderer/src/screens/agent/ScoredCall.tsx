import type { OperationOutput } from '../../../../src/operations/catalogue';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Link,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useMemo, useState } from 'react';
import { useEngineRefresh } from '../../stores/events';
import { client, useSession, ws } from '../../stores/session';
import { callTurns } from '../../ui/callTurns';
import {
  ActionButton,
  ErrorNote,
  PassChip,
  fieldError,
  fmtDate,
  fmtNum,
  useAction,
  useLoad,
} from '../../ui/common';
import { MetricResultCard } from '../../ui/MetricResultCard';
import { plural } from '../../ui/words';
import { NumberedTurns, type Evidence } from '../../ui/NumberedTurns';

type Call = OperationOutput<'calls.get'>;
type Made = OperationOutput<'calls.scenario'>['scenario'];

/** "Make a scenario": the workspace it goes to (this one at first) and an optional name. */
function ScenarioDialog({
  callId,
  onClose,
  onMade,
}: {
  callId: string;
  onClose: () => void;
  onMade: (made: { scenario: Made; workspaceId: string }) => void;
}) {
  const [workspaceId, setWorkspaceId] = useState(ws());
  const [name, setName] = useState('');
  const workspaces = useLoad(() => client().invoke('workspaces.list'), []);
  const make = useAction(async () => {
    const { scenario } = await client().invoke('calls.scenario', {
      call_id: callId,
      workspaceId,
      ...(name.trim() ? { name: name.trim() } : {}),
    });
    onMade({ scenario, workspaceId });
    onClose();
  });
  return (
    <Dialog open onClose={onClose} fullWidth aria-labelledby="call-scenario-title">
      <DialogTitle id="call-scenario-title">Make a scenario from this call</DialogTitle>
      <DialogContent>
        <Typography variant="body2" sx={{ mb: 2 }}>
          A persona of the caller, and a scenario replaying the caller's turns, each with the
          agent's reply as its reference answer.
        </Typography>
        <Stack spacing={2}>
          <TextField
            select
            label="Workspace"
            value={workspaces.data ? workspaceId : ''}
            onChange={(e) => setWorkspaceId(e.target.value)}
            error={Boolean(fieldError(make.error, 'workspaceId'))}
            helperText={fieldError(make.error, 'workspaceId')}
          >
            {(workspaces.data?.workspaces ?? []).map((w) => (
              <MenuItem key={w.id} value={w.id}>
                {w.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label="Scenario name (optional)"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={Boolean(fieldError(make.error, 'name'))}
            helperText={
              fieldError(make.error, 'name') ?? 'Default: the agent, the call and its day'
            }
          />
          <ErrorNote
            error={make.error}
            fields={{ workspaceId: 'Workspace', name: 'Scenario name' }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <ActionButton busy={make.busy} onClick={() => void make.run()}>
          Make the scenario
        </ActionButton>
      </DialogActions>
    </Dialog>
  );
}

/** Where the scenario made went, with a link there (switching workspace when it is another). */
function MadeScenario({ made }: { made: { scenario: Made; workspaceId: string } }) {
  const open = () => {
    const session = useSession.getState();
    if (session.workspaceId !== made.workspaceId) session.setWorkspace(made.workspaceId);
    session.navigate('scenarios');
  };
  return (
    <Alert severity="success" role="status" sx={{ my: 1 }}>
      Scenario made:{' '}
      <Link component="button" type="button" onClick={open} sx={{ verticalAlign: 'baseline' }}>
        {made.scenario.name}
      </Link>{' '}
      ({plural(made.scenario.script?.length ?? 0, 'scripted line')}, tagged production)
    </Alert>
  );
}

function CallSummary({ call }: { call: Call }) {
  const e = call.evaluation;
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Typography>{fmtDate(call.startedAt)}</Typography>
      {e ? <PassChip passed={e.passed} /> : <Typography>not scored yet</Typography>}
      {e && <Typography>score {fmtNum(e.score)}</Typography>}
      {e && (
        <Typography variant="body2">
          scored {fmtDate(e.evaluatedAt)} ({e.reason.replace('_', ' ')})
        </Typography>
      )}
      <Typography variant="body2">
        {call.agentVersion === null ? 'version unknown' : `version ${call.agentVersion}`}
      </Typography>
    </Stack>
  );
}

/**
 * One imported call: its turns numbered as the judge numbered them (tool turns in place), each
 * metric's result beside them with its evidence; score it now, or make a scenario of it.
 */
export function ScoredCall({ callId }: { callId: string }) {
  const call = useLoad(() => client().invoke('calls.get', { call_id: callId }), [callId]);
  useEngineRefresh(
    (e) => e.type === 'call.evaluated' && e.data.callId === callId,
    () => void call.reload(),
  );
  const [active, setActive] = useState<Evidence | null>(null);
  const [making, setMaking] = useState(false);
  const [made, setMade] = useState<{ scenario: Made; workspaceId: string } | null>(null);
  const [asked, setAsked] = useState(false);
  const evaluate = useAction(async () => {
    await client().invoke('calls.evaluate', { call_id: callId });
    setAsked(true);
  });
  const c = call.data;
  const turns = useMemo(() => (c ? callTurns(c) : []), [c]);
  const results = c?.evaluation?.results;
  const cited = useMemo(
    () => new Set((results ?? []).flatMap((r) => (r.evidence ?? []).map((e) => e.turn))),
    [results],
  );
  if (!c) return <ErrorNote error={call.error} />;
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-label="Call">
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}
      >
        <CallSummary call={c} />
        <Stack direction="row" spacing={1}>
          <ActionButton busy={evaluate.busy} variant="outlined" onClick={() => void evaluate.run()}>
            Evaluate now
          </ActionButton>
          <Button variant="outlined" onClick={() => setMaking(true)}>
            Make a scenario
          </Button>
        </Stack>
      </Stack>
      {asked && !evaluate.error && (
        <Typography role="status" variant="body2" sx={{ mt: 1 }}>
          Queued for scoring: the result shows here when it is in.
        </Typography>
      )}
      <ErrorNote error={evaluate.error} />
      {made && <MadeScenario made={made} />}
      {c.summary && (
        <Typography variant="body2" sx={{ my: 1 }}>
          {c.summary}
        </Typography>
      )}
      <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2} sx={{ mt: 1 }}>
        <Box sx={{ flex: 3, maxHeight: 560, overflowY: 'auto' }}>
          <NumberedTurns turns={turns} cited={cited} active={active} />
        </Box>
        <Box sx={{ flex: 2 }} aria-label="Metric results">
          {!results?.length && <Typography>No metric result yet.</Typography>}
          {(results ?? []).map((r) => (
            <MetricResultCard key={r.metric_id} result={r} active={active} onEvidence={setActive} />
          ))}
        </Box>
      </Stack>
      {making && (
        <ScenarioDialog callId={callId} onClose={() => setMaking(false)} onMade={setMade} />
      )}
    </Paper>
  );
}
