import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Stack,
  Typography,
} from '@mui/material';
import { useId } from 'react';
import type { OutputOf } from '../client';
import { client, useSession, wsInput } from '../stores/session';
import { CallRecording } from './CallRecording';
import { caseName, type CaseRow, type Comparison } from './comparisonWords';
import { pairUp } from './comparisonPairing';
import { ErrorNote, PassChip, fmtNum, useLoad } from './common';
import { statusWords } from './words';

type Sim = OutputOf<'executions.simulations'>['simulations'][number];

/** A side's simulations of one case, in the order they were queued (execution by execution). */
async function simulationsOf(executionIds: string[], row: CaseRow): Promise<Sim[]> {
  const lists = await Promise.all(
    executionIds.map((id) =>
      client().invoke('executions.simulations', wsInput({ execution_id: id })),
    ),
  );
  return lists
    .flatMap((l) => l.simulations)
    .filter((s) => s.scenario_id === row.scenario_id && s.persona_id === row.persona_id);
}

const TURN_STYLE = {
  caller: { alignSelf: 'flex-start', bgcolor: 'action.selected' },
  agent: { alignSelf: 'flex-end', bgcolor: 'primary.main', color: 'primary.contrastText' },
  tool: { alignSelf: 'center', bgcolor: 'background.paper', border: 1, fontFamily: 'monospace' },
} as const;

/** One side of a pair: its outcome, the recording of an audio call, and the transcript. */
function SideTranscript({ sim, side }: { sim: Sim | null; side: string }) {
  const navigate = useSession((s) => s.navigate);
  if (!sim)
    return (
      <Box sx={{ flex: 1, minWidth: 0 }}>
        <Typography variant="body2">No {side} simulation ran this case as this run.</Typography>
      </Box>
    );
  return (
    <Box sx={{ flex: 1, minWidth: 0 }} aria-label={`${side} transcript`} component="section">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1, flexWrap: 'wrap' }}>
        <Typography sx={{ fontWeight: 600, textTransform: 'capitalize' }}>{side}</Typography>
        {sim.status === 'completed' ? (
          <PassChip passed={sim.passed} />
        ) : (
          <Typography variant="body2">{statusWords(sim.status)}: no outcome</Typography>
        )}
        <Typography variant="body2">score {fmtNum(sim.score)}</Typography>
        <Button size="small" onClick={() => navigate(`simulations/${sim.id}`)}>
          Open simulation
        </Button>
      </Stack>
      {sim.recording_url && <CallRecording sim={sim} onTime={() => undefined} />}
      <Stack spacing={0.5} role="log" aria-label={`${side} turns`}>
        {sim.turns.map((t, i) => (
          <Box key={i} sx={{ maxWidth: '85%', p: 1, borderRadius: 2, ...TURN_STYLE[t.role] }}>
            <Typography variant="caption" component="div">
              {t.role}
            </Typography>
            {t.role === 'tool' && t.tool
              ? `${t.tool.name}(${JSON.stringify(t.tool.arguments)})`
              : t.text}
          </Box>
        ))}
      </Stack>
      {sim.results
        .filter((r) => r.passed === false)
        .map((r) => (
          <Typography key={r.metric_id} variant="body2" color="error" sx={{ mt: 1 }}>
            Not met: {r.name}
          </Typography>
        ))}
    </Box>
  );
}

/** A case's paired transcripts side by side, baseline left and candidate right, run by run. */
export function PairsDialog({
  comparison,
  row,
  onClose,
}: {
  comparison: Comparison;
  row: CaseRow;
  onClose: () => void;
}) {
  const titleId = useId();
  const pairs = useLoad(async () => {
    const [b, c] = await Promise.all([
      simulationsOf(comparison.baseline.execution_ids, row),
      simulationsOf(comparison.candidate.execution_ids, row),
    ]);
    return pairUp(b, c);
  }, [comparison.baseline.execution_ids, comparison.candidate.execution_ids, row]);
  return (
    <Dialog open onClose={onClose} maxWidth="xl" fullWidth aria-labelledby={titleId}>
      <DialogTitle id={titleId}>Paired transcripts: {caseName(row)}</DialogTitle>
      <DialogContent dividers>
        <ErrorNote error={pairs.error} />
        {pairs.loading && <LinearProgress aria-label="Loading the transcripts" />}
        {pairs.data?.length === 0 && <Typography>No simulations of this case.</Typography>}
        {pairs.data?.map((p) => (
          <Box key={p.key} component="section" aria-label={`Run ${p.run ?? '?'}`} sx={{ mb: 3 }}>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              Run {p.run ?? '(not recorded)'}
            </Typography>
            <Stack
              direction="row"
              spacing={2}
              divider={<Box sx={{ borderLeft: 1, borderColor: 'divider' }} />}
            >
              <SideTranscript sim={p.baseline} side="baseline" />
              <SideTranscript sim={p.candidate} side="candidate" />
            </Stack>
          </Box>
        ))}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
