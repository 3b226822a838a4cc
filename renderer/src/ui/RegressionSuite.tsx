import type { OperationOutput } from '../../../src/operations/catalogue';
import {
  Box,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useScenarios } from '../stores/resources';
import { client } from '../stores/session';
import { ActionButton, ErrorNote, fieldError, fmtDate, useAction, useLoad } from './common';

type Agent = OperationOutput<'agents.get'>;

/** A multiple select answers a list (or, typed in by autofill, one comma-separated string). */
const listOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : String(v).split(',').filter(Boolean);

/** The agent's latest suite runs: version, status, and the verdict of its comparison. */
function SuiteRuns({ agentId }: { agentId: string }) {
  const runs = useLoad(
    () => client().invoke('agents.regressionRuns', { agent_id: agentId, limit: 5 }),
    [agentId],
  );
  const list = runs.data?.runs ?? [];
  if (runs.error) return <ErrorNote error={runs.error} />;
  if (list.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
        No run yet: the suite runs when a sync records a new version of the agent.
      </Typography>
    );
  return (
    <Table size="small" aria-label="Regression suite runs" sx={{ mt: 1 }}>
      <TableHead>
        <TableRow>
          <TableCell>Version</TableCell>
          <TableCell>Started</TableCell>
          <TableCell>Status</TableCell>
          <TableCell>Verdict</TableCell>
          <TableCell>Comparison</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {list.map((r) => (
          <TableRow key={r.id}>
            <TableCell>{r.version}</TableCell>
            <TableCell>{fmtDate(r.created_at)}</TableCell>
            <TableCell>{r.error ? `${r.status}: ${r.error}` : r.status}</TableCell>
            <TableCell>
              {r.verdict?.replace(/_/g, ' ') ?? 'first run: nothing to compare'}
            </TableCell>
            <TableCell>{r.comparison_id ?? ''}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/**
 * The drift suite: scenarios of this workspace run on the agent alone whenever a sync records a
 * new version of it, compared with the previous version's run (an agent_regression alert hears
 * of it). Mount it with `key={agent.updated_at}`: a save moves that, and the form starts afresh.
 */
export function RegressionSuite({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const scenarios = useScenarios((s) => s.items);
  const loadScenarios = useScenarios((s) => s.load);
  useEffect(() => {
    void loadScenarios({ limit: 100 });
  }, [loadScenarios]);
  const [chosen, setChosen] = useState<string[]>(agent.regressionSuite?.scenarioIds ?? []);
  const [runs, setRuns] = useState(String(agent.regressionSuite?.runs ?? 5));
  const save = useAction(async (suite: { scenarioIds: string[]; runs: number } | null) => {
    await client().invoke('agents.update', { agent_id: agent.id, regressionSuite: suite });
    onSaved();
  });
  // Agents of our own are never synced: they record no versions to run a suite on.
  if (agent.provider === 'http' || agent.provider === 'demo') return null;
  const nameOf = (id: string) => scenarios.find((s) => s.id === id)?.name ?? id;
  return (
    <Box component="section" aria-labelledby="agent-suite-title" sx={{ mb: 2 }}>
      <Typography id="agent-suite-title" variant="subtitle2">
        Regression suite
      </Typography>
      <Typography variant="body2" color="text.secondary">
        Runs on {agent.name} alone at each new version a sync records, and is compared with the
        previous version&apos;s run.
      </Typography>
      <Stack direction="row" spacing={1} sx={{ mt: 1, alignItems: 'flex-start' }}>
        <TextField
          select
          size="small"
          label="Scenarios"
          value={chosen}
          onChange={(e) => setChosen(listOf(e.target.value))}
          slotProps={{
            select: { multiple: true, renderValue: (v) => listOf(v).map(nameOf).join(', ') },
          }}
          error={Boolean(fieldError(save.error, 'regressionSuite.scenarioIds'))}
          helperText={fieldError(save.error, 'regressionSuite.scenarioIds')}
          sx={{ minWidth: 320 }}
        >
          {scenarios.map((s) => (
            <MenuItem key={s.id} value={s.id}>
              {s.name}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          type="number"
          label="Runs"
          value={runs}
          onChange={(e) => setRuns(e.target.value)}
          error={Boolean(fieldError(save.error, 'regressionSuite.runs'))}
          helperText={fieldError(save.error, 'regressionSuite.runs') ?? '1 to 20 per case'}
          sx={{ width: 120 }}
        />
        <ActionButton
          busy={save.busy}
          onClick={() => void save.run({ scenarioIds: chosen, runs: Number(runs) })}
        >
          Save suite
        </ActionButton>
        {agent.regressionSuite && (
          <ActionButton busy={save.busy} onClick={() => void save.run(null)}>
            Clear suite
          </ActionButton>
        )}
      </Stack>
      <ErrorNote
        error={save.error}
        fields={{ 'regressionSuite.scenarioIds': 'Scenarios', 'regressionSuite.runs': 'Runs' }}
      />
      {agent.regressionSuite && <SuiteRuns agentId={agent.id} />}
    </Box>
  );
}
