import { MenuItem, Stack, TextField } from '@mui/material';
import type { InputOf } from '../client';
import { CODEC_NAMES } from './lineSound';

type LineChoice = NonNullable<NonNullable<InputOf<'scenarios.create'>['audio']>['line']>;
export type LineProfile = Extract<LineChoice, string>;
type CustomLine = Exclude<LineChoice, string>;

// Keys of a record over the catalogue's own profiles: adding one there fails to compile here.
const LINE_PROFILES: Record<LineProfile, string> = {
  studio: "studio: clean, at the call's own rate",
  phone: 'phone: 8 kHz μ-law',
  mobile: 'mobile: phone with losses',
};
const PROFILES = Object.keys(LINE_PROFILES) as LineProfile[];

/** A line in a few words: its profile's name, or "custom". */
const lineName = (line: LineChoice | undefined) =>
  line === undefined ? 'studio' : typeof line === 'string' ? line : 'custom';

/** The line as the editor edits it: a profile, or a custom line with its figures as typed. */
export interface LineDraft {
  kind: LineProfile | 'custom';
  codec: CustomLine['codec'];
  sampleRate: CustomLine['sampleRate'];
  lossPercent: string;
  jitterMs: string;
  latencyMs: string;
}

export const lineDraftOf = (line: LineChoice | undefined): LineDraft =>
  line === undefined || typeof line === 'string'
    ? {
        kind: line ?? 'studio',
        codec: 'mulaw',
        sampleRate: 8000,
        lossPercent: '',
        jitterMs: '',
        latencyMs: '',
      }
    : {
        kind: 'custom',
        codec: line.codec,
        sampleRate: line.sampleRate,
        lossPercent: String(line.lossPercent ?? ''),
        jitterMs: String(line.jitterMs ?? ''),
        latencyMs: String(line.latencyMs ?? ''),
      };

/** A typed number, or absent when blank (the engine says why a bad one is bad). */
const optionalNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** What scenarios.create and scenarios.update take: a profile's name, or a custom line. */
export function lineOf(d: LineDraft): LineChoice {
  if (d.kind !== 'custom') return d.kind;
  const lossPercent = optionalNumber(d.lossPercent);
  const jitterMs = optionalNumber(d.jitterMs);
  const latencyMs = optionalNumber(d.latencyMs);
  return {
    codec: d.codec,
    sampleRate: d.sampleRate,
    ...(lossPercent !== undefined ? { lossPercent } : {}),
    ...(jitterMs !== undefined ? { jitterMs } : {}),
    ...(latencyMs !== undefined ? { latencyMs } : {}),
  };
}

interface LineProps {
  line: LineDraft;
  onChange: (line: LineDraft) => void;
  error: (path: string) => string | undefined;
}

/** A custom line's figures: its codec, its sample rate and its network's loss, jitter, latency. */
function CustomLineFields({ line, onChange, error }: LineProps) {
  const figure = (k: 'lossPercent' | 'jitterMs' | 'latencyMs', label: string, help: string) => (
    <TextField
      label={label}
      type="number"
      value={line[k]}
      placeholder="0"
      onChange={(e) => onChange({ ...line, [k]: e.target.value })}
      error={Boolean(error(`audio.line.${k}`))}
      helperText={error(`audio.line.${k}`) ?? help}
      sx={{ flex: 1 }}
    />
  );
  return (
    <Stack direction="row" spacing={1}>
      <TextField
        select
        label="Codec"
        value={line.codec}
        onChange={(e) => onChange({ ...line, codec: e.target.value as CustomLine['codec'] })}
        sx={{ flex: 1 }}
      >
        {Object.entries(CODEC_NAMES).map(([k, label]) => (
          <MenuItem key={k} value={k}>
            {label}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        label="Sample rate"
        value={line.sampleRate}
        onChange={(e) =>
          onChange({
            ...line,
            sampleRate: Number(e.target.value) === 16000 ? 16000 : 8000,
          })
        }
        sx={{ flex: 1 }}
      >
        <MenuItem value={8000}>8 kHz</MenuItem>
        <MenuItem value={16000}>16 kHz</MenuItem>
      </TextField>
      {figure('lossPercent', 'Loss (%)', '0 to 50')}
      {figure('jitterMs', 'Jitter (ms)', '0 to 1000')}
      {figure('latencyMs', 'Latency (ms)', '0 to 2000')}
    </Stack>
  );
}

/** The line between caller and agent in audio calls: a profile, or a custom one's figures. */
export function LineFields({ line, onChange, error }: LineProps) {
  return (
    <Stack spacing={2} role="group" aria-label="Audio line">
      <TextField
        select
        label="Line"
        value={line.kind}
        onChange={(e) => onChange({ ...line, kind: e.target.value as LineDraft['kind'] })}
        error={Boolean(error('audio.line'))}
        helperText={
          error('audio.line') ??
          'Between the caller and the agent in audio calls (an execution may choose another)'
        }
      >
        {PROFILES.map((p) => (
          <MenuItem key={p} value={p}>
            {LINE_PROFILES[p]}
          </MenuItem>
        ))}
        <MenuItem value="custom">custom: a codec, a rate and a network of one&apos;s own</MenuItem>
      </TextField>
      {line.kind === 'custom' && <CustomLineFields line={line} onChange={onChange} error={error} />}
    </Stack>
  );
}

/**
 * An execution's line and seed, for audio runs only (the engine refuses them on a text one):
 * the scenario's own line or a profile, and a seed that replays the same impairments.
 */
export function ExecutionLineFields({
  line,
  onLine,
  seed,
  onSeed,
  audioRun,
  scenarioLine,
  error,
}: {
  line: LineProfile | 'scenario';
  onLine: (line: LineProfile | 'scenario') => void;
  seed: string;
  onSeed: (seed: string) => void;
  audioRun: boolean;
  /** The scenario's own line, which 'scenario' keeps. */
  scenarioLine: LineChoice | undefined;
  error: (path: string) => string | undefined;
}) {
  return (
    <Stack direction="row" spacing={1}>
      <TextField
        select
        label="Line"
        value={line}
        disabled={!audioRun}
        onChange={(e) => onLine(e.target.value as LineProfile | 'scenario')}
        error={Boolean(error('line'))}
        helperText={
          error('line') ?? (audioRun ? 'Between the caller and the agent' : 'Audio mode only')
        }
        sx={{ flex: 1 }}
      >
        <MenuItem value="scenario">the scenario's own ({lineName(scenarioLine)})</MenuItem>
        {PROFILES.map((p) => (
          <MenuItem key={p} value={p}>
            {LINE_PROFILES[p]}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label="Seed"
        type="number"
        value={seed}
        disabled={!audioRun}
        placeholder="random"
        onChange={(e) => onSeed(e.target.value)}
        error={Boolean(error('seed'))}
        helperText={
          error('seed') ??
          (audioRun
            ? 'The same seed replays the same losses, jitter and caller behaviours'
            : 'Audio mode only')
        }
        sx={{ flex: 1 }}
      />
    </Stack>
  );
}
