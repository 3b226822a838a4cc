import type { OperationInput, OperationOutput } from '../../../src/operations/catalogue';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useScenarios } from '../stores/resources';
import { client, useSession, wsInput } from '../stores/session';
import { ActionButton, ErrorNote, fieldError, useAction } from './common';
import { VerdictChip } from './ComparisonBits';
import { ConfigurationEditor } from './ConfigurationEditor';

type Agent = OperationOutput<'agents.get'>;
type Experiment = OperationOutput<'experiments.get'>['experiment'];
type Configuration = OperationInput<'experiments.create'>['configuration'];

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** A multiple select answers a list (or, typed in by autofill, one comma-separated string). */
const listOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : String(v).split(',').filter(Boolean);

/** Follows an experiment until it ends: each look holds up to 20 s on the engine. */
function useFollowed(first: Experiment | null) {
  const [experiment, setExperiment] = useState(first);
  const id = first?.id;
  useEffect(() => {
    if (!id) return;
    let live = true;
    void (async () => {
      for (;;) {
        const got = await client().invoke(
          'experiments.get',
          wsInput({ experiment_id: id, wait: 20 }),
        );
        if (!live) return;
        setExperiment(got.experiment);
        if (ENDED.has(got.experiment.status)) return;
      }
    })();
    return () => {
      live = false;
    };
  }, [id]);
  return [experiment, setExperiment] as const;
}

/** The experiment as it runs, then its verdict, its comparison and the Apply button. */
function ExperimentProgress({
  started,
  onApplied,
}: {
  started: Experiment;
  onApplied: () => void;
}) {
  const [experiment, setExperiment] = useFollowed(started);
  const navigate = useSession((s) => s.navigate);
  const apply = useAction(async () => {
    const done = await client().invoke('experiments.apply', wsInput({ experiment_id: started.id }));
    setExperiment(done.experiment);
    onApplied();
  });
  const e = experiment ?? started;
  return (
    <Stack spacing={1.5} aria-label="Experiment progress">
      <Typography>
        Experiment {e.id}: <strong data-status={e.status}>{e.status}</strong>
      </Typography>
      <Typography variant="body2" color="text.secondary">
        Baseline {e.baseline_execution_ids.join(', ')} · candidate{' '}
        {e.candidate_execution_ids.join(', ')}
      </Typography>
      {e.error && <Typography color="error">{e.error}</Typography>}
      {e.verdict && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography>Verdict:</Typography>
          <VerdictChip verdict={e.verdict} large />
        </Stack>
      )}
      {e.comparison_id && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Button onClick={() => navigate(`comparisons/${e.comparison_id}`)}>
            Open comparison {e.comparison_id}
          </Button>
          <ActionButton
            busy={apply.busy}
            disabled={e.applied_at !== null}
            onClick={() => void apply.run()}
          >
            {e.applied_at ? 'Applied' : 'Apply'}
          </ActionButton>
        </Stack>
      )}
      {e.applied_at && (
        <Typography variant="body2">
          The configuration is now the agent&apos;s local overrides (not written to its provider).
        </Typography>
      )}
      <ErrorNote error={apply.error} />
    </Stack>
  );
}

/**
 * Runs the agent as it is against the agent with a configuration on top, on the replica, and
 * compares the two: pick scenarios, runs and the configuration; watch it, then apply it.
 */
export function ExperimentDialog({
  agent,
  onClose,
  onApplied,
}: {
  agent: Agent;
  onClose: () => void;
  onApplied: () => void;
}) {
  const scenarios = useScenarios((s) => s.items);
  const loadScenarios = useScenarios((s) => s.load);
  useEffect(() => {
    void loadScenarios({ limit: 100 });
  }, [loadScenarios]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [runs, setRuns] = useState('5');
  const [cap, setCap] = useState('');
  const [configuration, setConfiguration] = useState<unknown>({});
  const [started, setStarted] = useState<Experiment | null>(null);
  const start = useAction(async () => {
    const made = await client().invoke(
      'experiments.create',
      wsInput({
        agentId: agent.id,
        configuration: configuration as Configuration,
        scenarioIds: chosen,
        runs: Number(runs),
        ...(cap.trim() ? { maxCostUsd: Number(cap) } : {}),
      }),
    );
    setStarted(made.experiment);
  });
  const nameOf = (id: string) => scenarios.find((s) => s.id === id)?.name ?? id;
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md">
      <DialogTitle>Experiment on {agent.name}</DialogTitle>
      <DialogContent>
        {started ? (
          <ExperimentProgress started={started} onApplied={onApplied} />
        ) : (
          <Stack spacing={2} sx={{ mt: 1 }}>
            <Typography variant="body2" color="text.secondary">
              The agent as it is now against the agent with this configuration on top, both on the
              replica, their runs taking turns; compared once both end. Text only.
            </Typography>
            <TextField
              select
              label="Scenarios"
              value={chosen}
              onChange={(e) => setChosen(listOf(e.target.value))}
              slotProps={{
                select: { multiple: true, renderValue: (v) => listOf(v).map(nameOf).join(', ') },
              }}
              error={Boolean(fieldError(start.error, 'scenarioIds'))}
              helperText={fieldError(start.error, 'scenarioIds')}
            >
              {scenarios.map((s) => (
                <MenuItem key={s.id} value={s.id}>
                  {s.name}
                </MenuItem>
              ))}
            </TextField>
            <Stack direction="row" spacing={1}>
              <TextField
                type="number"
                label="Runs"
                value={runs}
                onChange={(e) => setRuns(e.target.value)}
                error={Boolean(fieldError(start.error, 'runs'))}
                helperText={fieldError(start.error, 'runs') ?? '1 to 20 per scenario and side'}
              />
              <TextField
                type="number"
                label="Spend cap (USD)"
                value={cap}
                onChange={(e) => setCap(e.target.value)}
                error={Boolean(fieldError(start.error, 'maxCostUsd'))}
                helperText={fieldError(start.error, 'maxCostUsd') ?? 'optional'}
              />
            </Stack>
            <ConfigurationEditor
              agent={agent}
              value={configuration}
              onChange={setConfiguration}
              error={fieldError(start.error, 'configuration')}
            />
            <ErrorNote
              error={start.error}
              fields={{ scenarioIds: 'Scenarios', runs: 'Runs', maxCostUsd: 'Spend cap' }}
            />
          </Stack>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{started ? 'Close' : 'Cancel'}</Button>
        {!started && (
          <ActionButton busy={start.busy} onClick={() => void start.run()}>
            Start experiment
          </ActionButton>
        )}
      </DialogActions>
    </Dialog>
  );
}
