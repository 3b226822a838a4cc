import { Box, Stack, Tooltip, Typography } from '@mui/material';
import type { OutputOf } from '../client';
import { PassChip, StatusChip, fmtNum } from './common';
import { FIGURE_HELP, endReasonWords, modeWords, plural } from './words';

type Sim = OutputOf<'simulations.get'>['simulation'];

/**
 * Why a simulation did not pass, in a sentence: its error, else the metrics that failed, else the
 * scripted expectations the agent missed (a score of 100 can still fail on a critical metric or an
 * expectation). Null when it passed or is not judged yet.
 */
export function failureReason(sim: Sim): string | null {
  if (sim.error) return sim.error;
  if (sim.passed !== false) return null;
  const metrics = sim.results
    .filter((r) => r.passed === false)
    .map((r) => `${r.name}: ${r.reasoning || 'not passed'}`);
  const missed = sim.turns.filter((t) => t.expectation && !t.expectation.passed).length;
  const parts = [
    ...metrics,
    ...(missed ? [`${plural(missed, 'expectation')} of the script not met`] : []),
  ];
  return parts.length ? parts.join(' · ') : 'below the scorecard’s pass mark';
}

/** The verdict: status, passed or failed, the score, and beside them why it failed. */
function Verdict({ sim }: { sim: Sim }) {
  const reason = failureReason(sim);
  return (
    <Stack
      direction="row"
      spacing={1}
      aria-label="Simulation result"
      sx={{ alignItems: 'center', minWidth: 0 }}
    >
      {sim.status !== 'completed' && <StatusChip value={sim.status} />}
      <PassChip passed={sim.passed} />
      <Tooltip title={FIGURE_HELP.score} describeChild>
        <Typography sx={{ whiteSpace: 'nowrap' }} tabIndex={0}>
          score {fmtNum(sim.score)}
        </Typography>
      </Tooltip>
      {reason && (
        <Typography
          color="error"
          variant="body2"
          title={reason}
          data-testid="failure-reason"
          sx={{ overflow: 'hidden', textOverflow: 'ellipsis', display: '-webkit-box' }}
          style={{ WebkitLineClamp: 2, WebkitBoxOrient: 'vertical' }}
        >
          {reason}
        </Typography>
      )}
    </Stack>
  );
}

/**
 * A simulation's header, two short lines that never push the recording below the fold: the
 * verdict, then how it ran (text or audio, channel, why it ended, how long, model calls).
 */
export function SimulationHeader({ sim }: { sim: Sim }) {
  const seconds = sim.duration_ms === null ? '—' : `${(sim.duration_ms / 1000).toFixed(1)} s`;
  return (
    <Box sx={{ mb: 2 }}>
      <Verdict sim={sim} />
      <Typography variant="body2" sx={{ mt: 0.5 }} aria-label="How it ran">
        {modeWords(sim.mode)} · channel {sim.channel} · {endReasonWords(sim.end_reason)} · {seconds}{' '}
        · {plural(sim.usage.llm_calls, 'model call')}
      </Typography>
    </Box>
  );
}
