import { Box, Chip, Stack, Tooltip, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import type { OutputOf } from '../client';
import { client, wsInput } from '../stores/session';
import { CallTimeline, spokenTurns } from './CallTimeline';
import { FIGURE_HELP } from './words';

type Sim = OutputOf<'simulations.get'>['simulation'];

/** A figure as a chip, explained on hover (the chip keeps its visible text as its name). */
function Figure({ label, help, warn = false }: { label: string; help: string; warn?: boolean }) {
  return (
    <Tooltip title={help} describeChild>
      <Chip size="small" color={warn ? 'warning' : 'default'} label={label} tabIndex={0} />
    </Tooltip>
  );
}

/** The call's figures at a glance: first sound, latency percentiles, talk-overs, silences. */
export function AudioFigures({ audio }: { audio: NonNullable<Sim['audio']> }) {
  const ms = (n: number | null) => (n === null ? '—' : `${n} ms`);
  const l = audio.response_latency_ms;
  const h = FIGURE_HELP;
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ mb: 2, flexWrap: 'wrap', rowGap: 1 }}
      aria-label="Call figures"
    >
      <Figure
        warn={audio.transport === 'bland'}
        help={h.transport}
        label={`${audio.transport} call${audio.transport === 'bland' ? ' (experimental)' : ''}`}
      />
      <Figure help={h.firstAudio} label={`first audio ${ms(audio.time_to_first_audio_ms)}`} />
      <Figure
        help={h.latency}
        label={`latency p50 ${ms(l.p50)} · p90 ${ms(l.p90)} · max ${ms(l.max)}`}
      />
      <Figure
        warn={audio.talk_over.count > 0}
        help={h.talkOver}
        label={`talk-overs ${audio.talk_over.count} (${audio.talk_over.total_ms} ms)`}
      />
      <Figure help={h.silences} label={`silences > 3 s: ${audio.long_silences}`} />
      <Figure help={h.talkRatio} label={`talk ratio ${audio.talk_ratio ?? '—'}`} />
      <Figure help={h.pacing} label={`pacing p99 ${audio.pacing.late_p99_ms} ms`} />
      <Figure
        help={h.agentWords}
        label={`agent words: ${audio.agent_text_source.replace('_', ' ')}`}
      />
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

  const turns = spokenTurns(sim.turns);
  const totalMs = Math.max(1, sim.duration_ms ?? 0, ...turns.map((t) => t.audio.end_ms));
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
      <CallTimeline
        turns={turns}
        totalMs={totalMs}
        nowMs={nowMs}
        onSeek={(ms) => {
          seek(ms);
          setNowMs(ms);
        }}
      />
      <Stack direction="row" spacing={2} sx={{ mt: 0.5 }}>
        <Typography variant="caption">Top: agent · bottom: caller · orange: talk-over</Typography>
      </Stack>
    </Box>
  );
}
