import { Box, Typography } from '@mui/material';
import type { MouseEvent } from 'react';
import type { OutputOf } from '../client';
import { tickLabel, tickStepMs } from './timeAxis';

type Turn = OutputOf<'simulations.get'>['simulation']['turns'][number];
type SpokenTurn = Turn & { audio: NonNullable<Turn['audio']> };

/** Heights of the timeline's rows, in px: latency captions, agent bars, caller bars. */
const CAPTION_TOP = 0;
const AGENT_TOP = 18;
const CALLER_TOP = 42;
const BAR_HEIGHT = 18;
const HEIGHT = 64;

const barColour = (t: SpokenTurn) =>
  t.audio.talk_over_ms ? 'warning.main' : t.role === 'agent' ? 'primary.main' : 'success.main';

/** One turn's speech as a bar (agent on top, caller below); its latency is a caption above it. */
function TurnBar({ turn: t, x }: { turn: SpokenTurn; x: (ms: number) => string }) {
  const span = `${(t.audio.start_ms / 1000).toFixed(1)}–${(t.audio.end_ms / 1000).toFixed(1)} s`;
  return (
    <>
      <Box
        title={`${t.role} ${span}${t.latency_ms !== null ? ` · ${t.latency_ms} ms` : ''}`}
        data-side={t.role}
        sx={{
          position: 'absolute',
          left: x(t.audio.start_ms),
          width: x(t.audio.end_ms - t.audio.start_ms),
          top: t.role === 'agent' ? AGENT_TOP : CALLER_TOP,
          height: BAR_HEIGHT,
          borderRadius: 0.5,
          bgcolor: barColour(t),
        }}
      />
      {/* The caption sits on the timeline's own background, never on a coloured bar, so its
          contrast is the page text's whatever the bar's colour (axe: color-contrast). */}
      {t.role === 'agent' && t.latency_ms !== null && (
        <Typography
          variant="caption"
          sx={{
            position: 'absolute',
            top: CAPTION_TOP,
            left: x(t.audio.start_ms),
            lineHeight: '16px',
            color: 'text.primary',
            whiteSpace: 'nowrap',
          }}
        >
          {t.latency_ms} ms
        </Typography>
      )}
    </>
  );
}

/** Seconds under the timeline, at round steps, so a bar's place reads as a time. */
function TimeAxis({ totalMs, x }: { totalMs: number; x: (ms: number) => string }) {
  const step = tickStepMs(totalMs);
  const ticks: number[] = [];
  for (let ms = 0; ms <= totalMs; ms += step) ticks.push(ms);
  return (
    <Box data-testid="timeline-axis" sx={{ position: 'relative', height: 18 }} aria-hidden>
      {ticks.map((ms) => (
        <Typography
          key={ms}
          variant="caption"
          data-ms={ms}
          sx={{
            position: 'absolute',
            left: x(ms),
            transform: ms === 0 ? 'none' : 'translateX(-50%)',
            color: 'text.secondary',
            borderLeft: 1,
            borderColor: 'divider',
            pl: 0.25,
            lineHeight: '18px',
          }}
        >
          {tickLabel(ms)}
        </Typography>
      ))}
    </Box>
  );
}

/**
 * The call over time: each side's speech as bars, each reply's latency above it, talk-overs in the
 * warning colour, a time axis and the playhead at `nowMs`. A click anywhere seeks there.
 */
export function CallTimeline({
  turns,
  totalMs,
  nowMs,
  onSeek,
}: {
  turns: SpokenTurn[];
  totalMs: number;
  nowMs: number;
  onSeek: (ms: number) => void;
}) {
  const x = (ms: number) => `${(Math.min(ms, totalMs) / totalMs) * 100}%`;
  const seekAt = (e: MouseEvent<HTMLElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const share = Math.min(1, Math.max(0, (e.clientX - box.left) / box.width));
    onSeek(share * totalMs);
  };
  return (
    <Box sx={{ mt: 1 }}>
      <Box
        role="img"
        aria-label="Call timeline: caller and agent speech, latencies and talk-overs"
        data-testid="call-timeline"
        onClick={seekAt}
        sx={{
          position: 'relative',
          height: HEIGHT,
          bgcolor: 'action.hover',
          borderRadius: 1,
          cursor: 'pointer',
        }}
      >
        {turns.map((t, i) => (
          <TurnBar key={i} turn={t} x={x} />
        ))}
        <Box
          data-testid="playhead"
          data-ms={Math.round(nowMs)}
          sx={{
            position: 'absolute',
            left: x(nowMs),
            top: 0,
            bottom: 0,
            width: 2,
            bgcolor: 'error.main',
            pointerEvents: 'none',
          }}
        />
      </Box>
      <TimeAxis totalMs={totalMs} x={x} />
    </Box>
  );
}

/** The turns that were heard (agent and caller speech with its times), for the timeline. */
export const spokenTurns = (turns: Turn[]): SpokenTurn[] =>
  turns.filter((t): t is SpokenTurn => Boolean(t.audio) && t.role !== 'tool');
