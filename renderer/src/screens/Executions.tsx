import {
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TablePagination,
  TableRow,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useExecutions, useScenarios } from '../stores/resources';
import { client, useSession, wsInput } from '../stores/session';
import { changesExecution, useEngineRefresh } from '../stores/events';
import { SimulationList } from '../ui/SimulationList';
import { executionEnded } from '../ui/executionStatus';
import { EmptyState } from '../ui/EmptyState';
import { SimulationHeader } from '../ui/SimulationHeader';
import { CompareDialogButton, CompareWithPrevious } from '../ui/ComparisonPick';
import { Explained } from '../ui/Explained';
import { FIGURE_HELP, modeWords, plural } from '../ui/words';
import { AudioFigures, CallRecording } from '../ui/CallRecording';
import { CallerPanel, ConditionsTable, HeardText, TurnActChips } from '../ui/CallerSummary';
import { costWords } from '../ui/CostFields';
import {
  ErrorNote,
  Page,
  PassChip,
  StatusChip,
  fmtDate,
  fmtNum,
  useAction,
  useLoad,
  ConfirmButton,
} from '../ui/common';

/**
 * An execution that did not ask for a mode ran each scenario's own: its scenario's audio switch
 * says which (read now: a scenario switched since shows its new mode).
 */
function useScenarioModes() {
  const load = useScenarios((s) => s.load);
  const scenarios = useScenarios((s) => s.items);
  useEffect(() => void load({ limit: 100 }), [load]);
  return (scenarioId: string) => {
    const found = scenarios.find((x) => x.id === scenarioId);
    return found ? (found.audio?.enabled ? 'audio' : 'text') : null;
  };
}

export function Executions() {
  const { items, total, error, load } = useExecutions();
  const navigate = useSession((s) => s.navigate);
  const [page, setPage] = useState(0);
  const scenarioMode = useScenarioModes();
  useEffect(() => void load({ limit: 25, offset: page * 25 }), [load, page]);
  useEngineRefresh(
    (e) => e.type === 'simulation.finished' || e.type === 'execution.cancelled',
    () => void load({ limit: 25, offset: page * 25 }),
  );
  return (
    <Page
      title="Executions"
      actions={
        <>
          <Button onClick={() => navigate('simulations/all')}>All simulations</Button>
          <Button onClick={() => navigate('comparisons')}>Comparisons</Button>
          <CompareDialogButton />
        </>
      }
    >
      <ErrorNote error={error} />
      <Table size="small" aria-label="Executions">
        <TableHead>
          <TableRow>
            <TableCell>Scenario</TableCell>
            <TableCell>Created</TableCell>
            <TableCell>Mode</TableCell>
            <TableCell>Status</TableCell>
            <TableCell>Simulations</TableCell>
            <TableCell>
              <Explained help={FIGURE_HELP.passRate}>Pass rate</Explained>
            </TableCell>
            <TableCell>
              <Explained help={FIGURE_HELP.avgScore}>Avg score</Explained>
            </TableCell>
            <TableCell>Cost</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((e) => (
            <TableRow
              key={e.id}
              hover
              tabIndex={0}
              sx={{ cursor: 'pointer' }}
              onClick={() => navigate(`executions/${e.id}`)}
              onKeyDown={(k) => k.key === 'Enter' && navigate(`executions/${e.id}`)}
            >
              <TableCell title={`execution ${e.id}`}>{e.scenario_name ?? '(deleted)'}</TableCell>
              <TableCell>{fmtDate(e.created_at)}</TableCell>
              <TableCell>{modeWords(e.mode ?? scenarioMode(e.scenario_id))}</TableCell>
              <TableCell>
                <StatusChip value={e.status} />
              </TableCell>
              <TableCell>{e.simulations_created}</TableCell>
              <TableCell>{fmtNum(e.pass_rate, '%')}</TableCell>
              <TableCell>{fmtNum(e.avg_score)}</TableCell>
              <TableCell>{costWords(e)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {total === 0 && !error && (
        <EmptyState
          text="No executions yet. An execution runs a scenario's calls and scores them: execute one from Scenarios."
          actionLabel="Go to Scenarios"
          onAction={() => navigate('scenarios')}
        />
      )}
      <TablePagination
        component="div"
        count={total}
        page={page}
        rowsPerPage={25}
        rowsPerPageOptions={[25]}
        onPageChange={(_e, p) => setPage(p)}
      />
    </Page>
  );
}

export function AllSimulations() {
  const navigate = useSession((s) => s.navigate);
  const [tick, setTick] = useState(0);
  useEngineRefresh(
    (e) =>
      e.type === 'simulation.progress' ||
      e.type === 'simulation.finished' ||
      e.type === 'execution.cancelled',
    () => setTick((t) => t + 1),
    1000,
  );
  return (
    <Page title="All simulations">
      <SimulationList refreshKey={tick} onOpen={(id) => navigate(`simulations/${id}`)} />
    </Page>
  );
}

export function ExecutionDetail({ id }: { id: string }) {
  const navigate = useSession((s) => s.navigate);
  const execution = useLoad(
    () => client().invoke('executions.get', wsInput({ execution_id: id })),
    [id],
  );
  const [tick, setTick] = useState(0);
  useEngineRefresh(
    (e) => changesExecution(e, id),
    () => {
      void execution.reload();
      setTick((t) => t + 1);
    },
  );
  const cancel = useAction(async () => {
    await client().invoke('executions.cancel', wsInput({ execution_id: id }));
    await execution.reload();
  });
  const e = execution.data?.execution;
  return (
    <Page
      title={e ? `Execution: ${e.scenario_name ?? '(deleted scenario)'}` : 'Execution'}
      actions={
        <>
          {e && <CompareWithPrevious execution={e} />}
          {e && !executionEnded(e.status) && (
            <ConfirmButton
              color="warning"
              question="Cancel this execution?"
              consequence="Simulations under way stop now and those queued never start; finished ones keep their results."
              confirmLabel="Cancel execution"
              onConfirm={() => cancel.run()}
            >
              Cancel
            </ConfirmButton>
          )}
        </>
      }
    >
      <ErrorNote error={execution.error ?? cancel.error} />
      {e && (
        // Whole figures wrap as units, so the header stays a line or two at 1280 px.
        <Stack
          direction="row"
          useFlexGap
          sx={{
            mb: 2,
            flexWrap: 'wrap',
            columnGap: 2,
            rowGap: 0.5,
            '& > *': { whiteSpace: 'nowrap' },
          }}
        >
          <StatusChip value={e.status} />
          <Typography>Started {fmtDate(e.created_at)}</Typography>
          <Typography>
            {e.counts.completed} completed · {e.counts.failed} failed · {e.counts.running} running ·{' '}
            {e.counts.queued} queued
            {e.counts.skipped ? ` · ${e.counts.skipped} skipped (cost cap)` : ''}
          </Typography>
          <Typography data-testid="execution-cost">
            Cost {costWords(e)}
            {e.max_cost_usd !== null ? ` of max $${e.max_cost_usd}` : ''}
          </Typography>
          <Typography>
            Pass rate {fmtNum(e.pass_rate, '%')} · average {fmtNum(e.avg_score)}
          </Typography>
          {e.line && (
            <Chip
              size="small"
              label={`line ${
                e.line.choice === null
                  ? "each scenario's own"
                  : typeof e.line.choice === 'string'
                    ? e.line.choice
                    : 'custom'
              }${e.line.seed !== null ? ` · seed ${e.line.seed}` : ''}`}
            />
          )}
          {e.audio && (
            <Typography aria-label="Audio latency">
              {plural(e.audio.calls, 'audio call')} · latency p50{' '}
              {fmtNum(e.audio.response_latency_ms.p50, ' ms')} · p90{' '}
              {fmtNum(e.audio.response_latency_ms.p90, ' ms')} · max{' '}
              {fmtNum(e.audio.response_latency_ms.max, ' ms')}
            </Typography>
          )}
        </Stack>
      )}
      {e?.audio && <ConditionsTable rows={e.audio.by_conditions} />}
      <SimulationList
        executionId={id}
        refreshKey={tick}
        onOpen={(sim) => navigate(`simulations/${sim}`)}
      />
    </Page>
  );
}

const ROLE_STYLE = {
  caller: { alignSelf: 'flex-start', bgcolor: 'action.selected' },
  agent: { alignSelf: 'flex-end', bgcolor: 'primary.main', color: 'primary.contrastText' },
  tool: {
    alignSelf: 'center',
    bgcolor: 'warning.light',
    color: 'black',
    fontFamily: 'monospace',
    fontSize: 12,
  },
};

/** The conversation like a chat: caller, agent and tool turns with latencies, then each metric. */
export function SimulationDetail({ id }: { id: string }) {
  const sim = useLoad(
    () => client().invoke('simulations.get', wsInput({ simulation_id: id })),
    [id],
  );
  // Queued, running, then its transcript and scores: the page follows it as it happens.
  useEngineRefresh(
    (e) =>
      (e.type === 'simulation.progress' || e.type === 'simulation.finished') &&
      e.data.simulationId === id,
    () => void sim.reload(),
  );
  const s = sim.data?.simulation;
  // Audio: the turn being played is highlighted and kept in view as the recording plays.
  const [playedMs, setPlayedMs] = useState<number | null>(null);
  const playing = s?.turns.findIndex(
    (t) =>
      playedMs !== null && t.audio && t.audio.start_ms <= playedMs && playedMs < t.audio.end_ms,
  );
  useEffect(() => {
    if (playing === undefined || playing < 0) return;
    document.querySelector(`[data-turn="${playing}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [playing]);
  return (
    <Page
      title={
        s
          ? `Simulation: ${s.persona_name ?? 'a deleted persona'} calls ${s.agent_name ?? 'a deleted agent'}`
          : 'Simulation'
      }
    >
      <ErrorNote error={sim.error} />
      {s && (
        <Stack direction={{ xs: 'column', lg: 'row' }} spacing={3}>
          <Box sx={{ flex: 3 }}>
            <SimulationHeader sim={s} />
            {/* The recording first: it stays above the fold at 1280x720, the figures below it. */}
            {s.recording_url && <CallRecording sim={s} onTime={setPlayedMs} />}
            {s.audio && <AudioFigures audio={s.audio} />}
            {s.audio?.caller && <CallerPanel caller={s.audio.caller} />}
            <Stack spacing={1} aria-label="Transcript" role="log">
              {s.turns.map((t, i) => (
                <Box
                  key={i}
                  sx={{
                    maxWidth: '75%',
                    p: 1.2,
                    borderRadius: 2,
                    ...ROLE_STYLE[t.role],
                    ...(i === playing ? { outline: '3px solid', outlineColor: 'error.main' } : {}),
                  }}
                  data-role={t.role}
                  data-turn={i}
                >
                  {/* Full opacity: faded, the caption under the agent's blue is 3.5:1 (axe). */}
                  <Typography variant="caption" component="div">
                    {t.role} · {(t.at_ms / 1000).toFixed(1)} s
                    {t.latency_ms !== null ? ` · ${t.latency_ms} ms` : ''}
                    {t.source ? ` · ${t.source.replace('_', ' ')}` : ''}
                    {t.role === 'caller' && <TurnActChips turn={t} />}
                  </Typography>
                  {t.role === 'tool' && t.tool ? (
                    <span>
                      {t.tool.name}({JSON.stringify(t.tool.arguments)}) →{' '}
                      {JSON.stringify(t.tool.result)}
                      {t.tool.success === false ? ' (failed)' : ''}
                    </span>
                  ) : (
                    <span>{t.text}</span>
                  )}
                  {t.role === 'caller' && <HeardText turn={t} />}
                  {t.expectation && !t.expectation.passed && (
                    // On the page's own background: red on the agent's blue was unreadable.
                    <Typography
                      variant="body2"
                      sx={{ mt: 0.5, px: 1, borderRadius: 1, bgcolor: 'background.paper' }}
                      color="error"
                    >
                      Expectation not met: {t.expectation.problems.join(', ')}
                    </Typography>
                  )}
                </Box>
              ))}
            </Stack>
          </Box>
          <Box sx={{ flex: 2 }}>
            <Typography variant="h6" component="h2">
              Metrics
            </Typography>
            {s.results.length === 0 && <Typography>No metric applied.</Typography>}
            {s.results.map((r) => (
              <Card key={r.metric_id} variant="outlined" sx={{ mb: 1 }}>
                <CardContent>
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <Typography sx={{ fontWeight: 600 }}>{r.name}</Typography>
                    <PassChip passed={r.passed} />
                    <Typography>{fmtNum(r.score)}</Typography>
                  </Stack>
                  <Typography variant="caption">
                    {r.category} · {r.type}
                  </Typography>
                  <Typography variant="body2">{r.reasoning}</Typography>
                </CardContent>
              </Card>
            ))}
          </Box>
        </Stack>
      )}
    </Page>
  );
}
