import { Box, Chip, Stack, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import type { OutputOf } from '../client';
import { client, wsInput } from '../stores/session';

type Sim = OutputOf<'simulations.get'>['simulation'];
type Turn = Sim['turns'][number];

/** The call's figures at a glance: first sound, latency percentiles, talk-overs, silences. */
export function AudioFigures({ audio }: { audio: NonNullable<Sim['audio']> }) {
  const ms = (n: number | null) => (n === null ? '—' : `${n} ms`);
  const l = audio.response_latency_ms;
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ mb: 2, flexWrap: 'wrap', rowGap: 1 }}
      aria-label="Call figures"
    >
      <Chip
        size="small"
        color={audio.transport === 'bland' ? 'warning' : 'default'}
        label={`${audio.transport} call${audio.transport === 'bland' ? ' (experimental)' : ''}`}
      />
      <Chip size="small" label={`first audio ${ms(audio.time_to_first_audio_ms)}`} />
      <Chip size="small" label={`latency p50 ${ms(l.p50)} · p90 ${ms(l.p90)} · max ${ms(l.max)}`} />
      <Chip
        size="small"
        color={audio.talk_over.count ? 'warning' : 'default'}
        label={`talk-overs ${audio.talk_over.count} (${audio.talk_over.total_ms} ms)`}
      />
      <Chip size="small" label={`silences > 3 s: ${audio.long_silences}`} />
      <Chip size="small" label={`talk ratio ${audio.talk_ratio ?? '—'}`} />
      <Chip size="small" label={`pacing p99 ${audio.pacing.late_p99_ms} ms`} />
      <Chip size="small" label={`agent words: ${audio.agent_text_source.replace('_', ' ')}`} />
      {audio.voice_activity && <VoiceActivityChip activity={audio.voice_activity} />}
    </Stack>
  );
}

/** Which detector found the agent's turns; where energy stood in for Silero, why (on hover). */
function VoiceActivityChip({
  activity,
}: {
  activity: NonNullable<NonNullable<Sim['audio']>['voice_activity']>;
}) {
  const fellBack = activity.reason !== null;
  return (
    <Chip
      size="small"
      color={fellBack ? 'warning' : 'default'}
      title={activity.reason ?? 'Silero VAD decided what was speech; energy dated it'}
      label={`turns by ${activity.detector === 'silero' ? 'Silero VAD' : 'energy'}`}
    />
  );
}

const spoken = (turns: Turn[]) => turns.filter((t) => t.audio && t.role !== 'tool');

/**
 * Plays the stereo recording (agent left, caller right) over a timeline: each side's speech as
 * bars, each reply's latency marked, talk-overs in the warning colour; `onTime` follows playback.
 */
export function CallRecording({ sim, onTime }: { sim: Sim; onTime: (ms: number) => void }) {
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [nowMs, setNowMs] = useState(0);
  const audioRef = useRef<HTMLAudioElement>(null);
  const id = sim.id;

  useEffect(() => {
    let url: string | null = null;
    let live = true;
    client()
      .invoke('simulations.recording', wsInput({ simulation_id: id }))
      .then((file) => {
        if (!live) return;
        const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
        url = URL.createObjectURL(new Blob([bytes], { type: file.content_type }));
        setSrc(url);
      })
      .catch((err: unknown) => live && setError((err as Error).message));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [id]);

  const turns = spoken(sim.turns);
  const totalMs = Math.max(1, sim.duration_ms ?? 0, ...turns.map((t) => t.audio!.end_ms));
  const x = (ms: number) => `${(ms / totalMs) * 100}%`;
  const seek = (ms: number) => {
    if (audioRef.current) audioRef.current.currentTime = ms / 1000;
  };
  return (
    <Box sx={{ mb: 2 }} aria-label="Recording">
      {error && <Typography color="error">Recording: {error}</Typography>}
      {src && (
        <audio
          ref={audioRef}
          controls
          src={src}
          style={{ width: '100%' }}
          onTimeUpdate={(e) => {
            const ms = e.currentTarget.currentTime * 1000;
            setNowMs(ms);
            onTime(ms);
          }}
        />
      )}
      <Box
        role="img"
        aria-label="Call timeline: caller and agent speech, latencies and talk-overs"
        sx={{ position: 'relative', height: 64, bgcolor: 'action.hover', borderRadius: 1, mt: 1 }}
      >
        {turns.map((t, i) => (
          <Box
            key={i}
            title={`${t.role} ${(t.audio!.start_ms / 1000).toFixed(1)}–${(t.audio!.end_ms / 1000).toFixed(1)} s${t.latency_ms !== null ? ` · ${t.latency_ms} ms` : ''}`}
            onClick={() => seek(t.audio!.start_ms)}
            data-side={t.role}
            sx={{
              position: 'absolute',
              cursor: 'pointer',
              left: x(t.audio!.start_ms),
              width: x(t.audio!.end_ms - t.audio!.start_ms),
              top: t.role === 'agent' ? 6 : 36,
              height: 22,
              borderRadius: 0.5,
              bgcolor: t.audio!.talk_over_ms
                ? 'warning.main'
                : t.role === 'agent'
                  ? 'primary.main'
                  : 'success.main',
            }}
          >
            {t.role === 'agent' && t.latency_ms !== null && (
              <Typography
                variant="caption"
                sx={{
                  position: 'absolute',
                  top: -2,
                  left: 2,
                  color: 'primary.contrastText',
                  whiteSpace: 'nowrap',
                }}
              >
                {t.latency_ms} ms
              </Typography>
            )}
          </Box>
        ))}
        <Box
          sx={{
            position: 'absolute',
            left: x(nowMs),
            top: 0,
            bottom: 0,
            width: 2,
            bgcolor: 'error.main',
          }}
        />
      </Box>
      <Stack direction="row" spacing={2} sx={{ mt: 0.5 }}>
        <Typography variant="caption">Top: agent · bottom: caller · orange: talk-over</Typography>
      </Stack>
    </Box>
  );
}
