import type { OperationOutput } from '../../../../src/operations/catalogue';
import {
  Alert,
  Button,
  FormControlLabel,
  MenuItem,
  Paper,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { client, ws } from '../../stores/session';
import { ActionButton, ErrorNote, fieldError, useAction, useLoad } from '../../ui/common';
import type { FieldLabels } from '../../ui/fieldErrors';

type Agent = OperationOutput<'agents.get'>;
type Monitoring = NonNullable<Agent['monitoring']>;

/** The fields the form shows, so their errors are said there and not again in a banner. */
const FIELDS: FieldLabels = {
  'monitoring.workspaceId': 'Workspace',
  'monitoring.scorecardId': 'Scorecard',
  'monitoring.sampleRate': 'Sample rate',
  'monitoring.shortCallMs': 'Short call (ms)',
  'monitoring.enabled': 'Enabled',
};

/** What the form edits: numbers as typed, so a half-typed one is not turned into 0. */
interface Draft {
  workspaceId: string;
  scorecardId: string;
  sampleRate: string;
  enabled: boolean;
  shortCallMs: string;
}

const draftOf = (m: Monitoring | null): Draft => ({
  workspaceId: m?.workspaceId ?? ws(),
  scorecardId: m?.scorecardId ?? '',
  sampleRate: String(m?.sampleRate ?? 10),
  enabled: m?.enabled ?? true,
  shortCallMs: String(m?.shortCallMs ?? 10_000),
});

/** A workspace, then one of its scorecards: the scorecard that scores the agent's calls. */
function ScorecardPicker({
  draft,
  setDraft,
  error,
}: {
  draft: Draft;
  setDraft: (d: Draft) => void;
  error: unknown;
}) {
  const workspaces = useLoad(() => client().invoke('workspaces.list'), []);
  const scorecards = useLoad(
    () => client().invoke('scorecards.list', { workspace_id: draft.workspaceId, limit: 100 }),
    [draft.workspaceId],
  );
  return (
    <>
      <TextField
        select
        size="small"
        label="Workspace"
        value={workspaces.data ? draft.workspaceId : ''}
        onChange={(e) => setDraft({ ...draft, workspaceId: e.target.value, scorecardId: '' })}
        error={Boolean(fieldError(error, 'monitoring.workspaceId'))}
        helperText={fieldError(error, 'monitoring.workspaceId')}
        sx={{ minWidth: 180 }}
      >
        {(workspaces.data?.workspaces ?? []).map((w) => (
          <MenuItem key={w.id} value={w.id}>
            {w.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label="Scorecard"
        value={scorecards.data ? draft.scorecardId : ''}
        onChange={(e) => setDraft({ ...draft, scorecardId: e.target.value })}
        error={Boolean(fieldError(error, 'monitoring.scorecardId'))}
        helperText={fieldError(error, 'monitoring.scorecardId')}
        sx={{ minWidth: 200 }}
      >
        {(scorecards.data?.scorecards ?? []).map((s) => (
          <MenuItem key={s.id} value={s.id}>
            {s.name}
          </MenuItem>
        ))}
      </TextField>
    </>
  );
}

/** Of the agent's newest calls (since a moment, if given), queues those the sample takes, unscored. */
function Backfill({ agentId }: { agentId: string }) {
  const [limit, setLimit] = useState('500');
  const [since, setSince] = useState('');
  const [queued, setQueued] = useState<number | null>(null);
  const run = useAction(async () => {
    const answer = await client().invoke('agents.monitoringBackfill', {
      agent_id: agentId,
      ...(limit.trim() ? { limit: Number(limit) } : {}),
      // A local date and time, as the picker gives it, sent as the moment it names.
      ...(since ? { since: new Date(since).toISOString() } : {}),
    });
    setQueued(answer.queued);
  });
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start', flexWrap: 'wrap' }}>
      <TextField
        size="small"
        type="number"
        label="Newest calls"
        value={limit}
        onChange={(e) => setLimit(e.target.value)}
        error={Boolean(fieldError(run.error, 'limit'))}
        helperText={fieldError(run.error, 'limit') ?? '1 to 500'}
        sx={{ width: 140 }}
      />
      <TextField
        size="small"
        type="datetime-local"
        label="Started since"
        value={since}
        onChange={(e) => setSince(e.target.value)}
        slotProps={{ inputLabel: { shrink: true } }}
        error={Boolean(fieldError(run.error, 'since'))}
        helperText={fieldError(run.error, 'since')}
      />
      <ActionButton busy={run.busy} variant="outlined" onClick={() => void run.run()}>
        Backfill
      </ActionButton>
      {queued !== null && (
        <Alert severity="success" role="status" sx={{ py: 0 }}>
          {queued} {queued === 1 ? 'call' : 'calls'} queued for scoring
        </Alert>
      )}
      <ErrorNote error={run.error} fields={{ limit: 'Newest calls', since: 'Started since' }} />
    </Stack>
  );
}

/**
 * Production monitoring of the agent: which scorecard of which workspace scores its imported calls,
 * the share sampled, short calls; turning it off; scoring past calls (backfill).
 */
export function MonitoringSettings({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent.monitoring));
  const save = useAction(async (monitoring: Monitoring | null) => {
    await client().invoke('agents.update', { agent_id: agent.id, monitoring });
    onSaved();
  });
  const settings = (): Monitoring => ({
    workspaceId: draft.workspaceId,
    scorecardId: draft.scorecardId,
    sampleRate: Number(draft.sampleRate),
    enabled: draft.enabled,
    shortCallMs: Number(draft.shortCallMs),
  });
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} component="section" aria-label="Monitoring">
      <Typography variant="subtitle1" component="h2" sx={{ mb: 1 }}>
        Monitoring {agent.monitoring ? (agent.monitoring.enabled ? 'on' : 'paused') : 'off'}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start', flexWrap: 'wrap' }}>
        <ScorecardPicker draft={draft} setDraft={setDraft} error={save.error} />
        <TextField
          size="small"
          type="number"
          label="Sample rate"
          value={draft.sampleRate}
          onChange={(e) => setDraft({ ...draft, sampleRate: e.target.value })}
          error={Boolean(fieldError(save.error, 'monitoring.sampleRate'))}
          helperText={fieldError(save.error, 'monitoring.sampleRate') ?? '% of calls, 0 to 100'}
          sx={{ width: 130 }}
        />
        <TextField
          size="small"
          type="number"
          label="Short call (ms)"
          value={draft.shortCallMs}
          onChange={(e) => setDraft({ ...draft, shortCallMs: e.target.value })}
          error={Boolean(fieldError(save.error, 'monitoring.shortCallMs'))}
          helperText={fieldError(save.error, 'monitoring.shortCallMs') ?? 'Shorter: always scored'}
          sx={{ width: 130 }}
        />
        <FormControlLabel
          control={
            <Switch
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
            />
          }
          label="Enabled"
        />
        <ActionButton busy={save.busy} onClick={() => void save.run(settings())}>
          Save monitoring
        </ActionButton>
        {agent.monitoring && (
          <Button color="warning" disabled={save.busy} onClick={() => void save.run(null)}>
            Turn off
          </Button>
        )}
      </Stack>
      <ErrorNote error={save.error} fields={FIELDS} />
      <Typography variant="body2" color="text.secondary" sx={{ my: 1 }}>
        Calls imported from now on are scored: the sample, and always calls that failed or were
        short. Past calls are scored by a backfill.
      </Typography>
      {agent.monitoring?.enabled && <Backfill agentId={agent.id} />}
    </Paper>
  );
}
