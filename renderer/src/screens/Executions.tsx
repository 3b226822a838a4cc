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
import { useExecutions } from '../stores/resources';
import { client, useSession, wsInput } from '../stores/session';
import { changesExecution, useEngineRefresh } from '../stores/events';
import { SimulationList } from '../ui/SimulationList';
import { executionEnded } from '../ui/executionStatus';
import { AudioFigures, CallRecording } from '../ui/CallRecording';
import { CallerPanel, ConditionsTable, HeardText, TurnActChips } from '../ui/CallerSummary';
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

export function Executions() {
  const { items, total, error, load } = useExecutions();
  const navigate = useSession((s) => s.navigate);
  const [page, setPage] = useState(0);
  useEffect(() => void load({ limit: 25, offset: page * 25 }), [load, page]);
  useEngineRefresh(
    (e) => e.type === 'simulation.finished' || e.type === 'execution.cancelled',
    () => void load({ limit: 25, offset: page * 25 }),
  );
  return (
    <Page
      title="Executions"
      actions={<Button onClick={() => navigate('simulations/all')}>All simulations</Button>}
    >
      <ErrorNote error={error} />
      <Table size="small" aria-label="Executions">
        <TableHead>
          <TableRow>
            <TableCell>Scenario</TableCell>
            <TableCell>Created</TableCell>
            <TableCell>Status</TableCell>
            <TableCell>Simulations</TableCell>
            <TableCell>Pass rate</TableCell>
            <TableCell>Avg score</TableCell>
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
              <TableCell>
                <StatusChip value={e.status} />
              </TableCell>
              <TableCell>{e.simulations_created}</TableCell>
              <TableCell>{fmtNum(e.pass_rate, '%')}</TableCell>
              <TableCell>{fmtNum(e.avg_score)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
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
        e &&
        !executionEnded(e.status) && (
          <ConfirmButton
            color="warning"
            question="Cancel this execution?"
            consequence="Simulations under way stop now and those queued never start; finished ones keep their results."
            confirmLabel="Cancel execution"
            onConfirm={() => cancel.run()}
          >
            Cancel
          </ConfirmButton>
        )
      }
    >
      <ErrorNote error={execution.error ?? cancel.error} />
      {e && (
        <Stack direction="row" spacing={2} sx={{ mb: 2 }}>
          <StatusChip value={e.status} />
          <Typography>Started {fmtDate(e.created_at)}</Typography>
          <Typography>
            {e.counts.completed} completed · {e.counts.failed} failed · {e.counts.running} running ·{' '}
            {e.counts.queued} queued
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
              {e.audio.calls} audio calls · latency p50{' '}
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
            <Stack direction="row" spacing={1} sx={{ mb: 2, alignItems: 'center' }}>
              <StatusChip value={s.status} />
              <PassChip passed={s.passed} />
              <Typography>score {fmtNum(s.score)}</Typography>
              <Chip size="small" label={`channel ${s.channel}`} />
              <Chip size="small" label={`${s.mode} mode`} />
              <Chip size="small" label={`ended: ${s.end_reason ?? '—'}`} />
              <Typography variant="body2">
                {fmtNum(s.duration_ms, ' ms')} · {s.usage.llm_calls} model calls
              </Typography>
            </Stack>
            {s.error && <Typography color="error">{s.error}</Typography>}
            {s.audio && <AudioFigures audio={s.audio} />}
            {s.audio?.caller && <CallerPanel caller={s.audio.caller} />}
            {s.recording_url && <CallRecording sim={s} onTime={setPlayedMs} />}
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
                  <Typography variant="caption" component="div" sx={{ opacity: 0.8 }}>
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
                    <Typography variant="body2" color="error">
                      Expectation: {t.expectation.problems.join(', ')}
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
