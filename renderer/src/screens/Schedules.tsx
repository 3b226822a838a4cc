import {
  Box,
  Button,
  MenuItem,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
  type TextFieldProps,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useScenarios, useSchedules } from '../stores/resources';
import { client, useSession, wsInput } from '../stores/session';
import { ErrorNote, fieldError, fmtDate, useAction, useLoad } from '../ui/common';
import { EditorDialog } from '../ui/EditorDialog';
import { ResourcePage } from '../ui/ResourcePage';
import { EmptyState } from '../ui/EmptyState';
import { RowActions } from '../ui/RowActions';
import { PeriodicityField } from '../ui/SchedulePreview';
import { MaxCostField } from '../ui/CostFields';
import { maxCostOf, maxCostText, runResultWords } from '../ui/ScheduleCost';

type ScheduleItem = ReturnType<typeof useSchedules.getState>['items'][number];

/** A new schedule, or (`editing`) a stored one with its fields, its cost cap included, read back. */
function ScheduleEditor({
  onClose,
  editing,
}: {
  onClose: (saved: boolean) => void;
  editing?: ScheduleItem;
}) {
  const scenarios = useScenarios();
  useEffect(() => void scenarios.load({ limit: 100 }), []);
  const [form, setForm] = useState({
    name: editing?.name ?? '',
    scenarioId: editing?.scenarioId ?? '',
    periodicity: editing?.periodicity ?? 'daily',
    timezone: editing?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    periodEndCondition: editing?.periodEndCondition ?? 'never',
  });
  const [maxCost, setMaxCost] = useState(maxCostText(editing?.maxCostUsd ?? null));
  const save = useAction(async () => {
    const maxCostUsd = maxCostOf(maxCost);
    if (editing)
      await client().invoke(
        'schedules.update',
        wsInput({ schedule_id: editing.id, ...form, maxCostUsd }),
      );
    else
      await client().invoke(
        'schedules.create',
        wsInput({ ...form, ...(maxCostUsd === null ? {} : { maxCostUsd }) }),
      );
    onClose(true);
  });
  const field = (
    k: keyof typeof form,
    label: string,
    { hint, ...extra }: TextFieldProps & { hint?: string } = {},
  ) => (
    <TextField
      label={label}
      value={form[k]}
      onChange={(e) => setForm({ ...form, [k]: e.target.value })}
      error={Boolean(fieldError(save.error, k))}
      helperText={fieldError(save.error, k) ?? hint}
      {...extra}
    />
  );
  return (
    <EditorDialog
      title={editing ? 'Edit schedule' : 'New schedule'}
      saveLabel="Save schedule"
      save={save}
      onClose={() => onClose(false)}
    >
      {field('name', 'Name')}
      {field('scenarioId', 'Scenario', {
        select: true,
        children: scenarios.items.map((s) => (
          <MenuItem key={s.id} value={s.id}>
            {s.name}
          </MenuItem>
        )),
      })}
      <PeriodicityField
        value={form.periodicity}
        timezone={form.timezone}
        saveError={save.error}
        onChange={(periodicity) => setForm({ ...form, periodicity })}
      />
      {field('timezone', 'Time zone (IANA)')}
      {field('periodEndCondition', 'Ends', { hint: 'never, after:<N> runs, or until:<date>' })}
      <MaxCostField
        value={maxCost}
        onChange={setMaxCost}
        error={fieldError(save.error, 'maxCostUsd')}
      />
    </EditorDialog>
  );
}

function Runs({ id }: { id: string }) {
  const navigate = useSession((s) => s.navigate);
  const runs = useLoad(() => client().invoke('schedules.runs', wsInput({ schedule_id: id })), [id]);
  return (
    <Box sx={{ pl: 4, pb: 1 }} aria-label="Runs">
      <ErrorNote error={runs.error} />
      {(runs.data?.runs ?? []).length === 0 && (
        <Typography variant="body2">No runs yet.</Typography>
      )}
      {(runs.data?.runs ?? []).map((r) => (
        <Typography key={r.id} variant="body2">
          {fmtDate(r.scheduledFor ?? r.startedAt)} · {r.trigger} · {r.late ? 'late · ' : ''}
          {r.result
            ? runResultWords(r.result)
            : `${r.outcome.replace(/_/g, ' ')}${r.reason ? `: ${r.reason}` : ''}`}{' '}
          {r.executionId && (
            <Button size="small" onClick={() => navigate(`executions/${r.executionId}`)}>
              results
            </Button>
          )}
        </Typography>
      ))}
    </Box>
  );
}

export function Schedules() {
  const { items, error, load } = useSchedules();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ScheduleItem | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => void load({ limit: 100 }), [load]);
  // Pause, run now, delete: each its own operation, then the list again.
  const act = useAction(async (change: () => Promise<unknown>) => {
    await change();
    await load({ limit: 100 });
  });
  return (
    <ResourcePage
      title="Schedules"
      newLabel="New schedule"
      onNew={() => setCreating(true)}
      error={error ?? act.error}
    >
      <Table size="small" aria-label="Schedules">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Periodicity</TableCell>
            <TableCell>Time zone</TableCell>
            <TableCell>Next run</TableCell>
            <TableCell>Active</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.flatMap((s) => [
            <TableRow key={s.id} hover>
              <TableCell>{s.name}</TableCell>
              <TableCell>{s.periodicity}</TableCell>
              <TableCell>{s.timezone}</TableCell>
              <TableCell>{fmtDate(s.nextRun)}</TableCell>
              <TableCell>
                <Switch
                  checked={s.isActive}
                  slotProps={{ input: { 'aria-label': `Active: ${s.name}` } }}
                  onChange={(e) =>
                    void act.run(() =>
                      client().invoke(
                        'schedules.update',
                        wsInput({ schedule_id: s.id, isActive: e.target.checked }),
                      ),
                    )
                  }
                />
              </TableCell>
              <RowActions
                remove={{
                  kind: 'schedule',
                  name: s.name,
                  consequence:
                    'It stops running, and its list of runs goes with it; the executions stay.',
                  onConfirm: () =>
                    act.run(() =>
                      client().invoke('schedules.delete', wsInput({ schedule_id: s.id })),
                    ),
                }}
              >
                <Button size="small" onClick={() => setOpen(open === s.id ? null : s.id)}>
                  Runs
                </Button>
                <Button size="small" onClick={() => setEditing(s)}>
                  Edit
                </Button>
                <Button
                  size="small"
                  onClick={() =>
                    void act.run(() =>
                      client().invoke('schedules.run', wsInput({ schedule_id: s.id })),
                    )
                  }
                >
                  Run now
                </Button>
              </RowActions>
            </TableRow>,
            open === s.id ? (
              <TableRow key={`${s.id}-runs`}>
                <TableCell colSpan={6}>
                  <Runs id={s.id} />
                </TableCell>
              </TableRow>
            ) : null,
          ])}
        </TableBody>
      </Table>
      {items.length === 0 && !error && (
        <EmptyState
          text="No schedules yet. A schedule runs a scenario again and again (hourly, daily, on a cron), to catch regressions."
          actionLabel="Schedule a scenario"
          onAction={() => setCreating(true)}
        />
      )}
      {(creating || editing) && (
        <ScheduleEditor
          key={editing?.id ?? 'new'}
          editing={editing ?? undefined}
          onClose={(saved) => {
            setCreating(false);
            setEditing(null);
            if (saved) void load({ limit: 100 });
          }}
        />
      )}
    </ResourcePage>
  );
}
