import { Box, MenuItem, Stack, TextField, Typography, type TextFieldProps } from '@mui/material';
import type { InputOf, OutputOf } from '../client';
import { PERSONA_BACKGROUND_NOISES } from '../generated/catalogue-enums';

type Persona = OutputOf<'personas.get'>['persona'];
type PersonaForm = Omit<InputOf<'personas.create'>, 'workspace_id'>;
type Difficulty = NonNullable<PersonaForm['difficulty']>;
type BackgroundNoise = NonNullable<PersonaForm['backgroundNoise']>;
type Behaviours = NonNullable<PersonaForm['behaviours']>;

// The catalogue's own list, generated from it (npm run gen:operations).
const BACKGROUNDS: readonly BackgroundNoise[] = PERSONA_BACKGROUND_NOISES;
/** The engine's SNR when a persona sets none: harder callers are noisier. */
const DEFAULT_SNR_DB: Record<Difficulty, number> = { easy: 25, medium: 15, hard: 8, very_hard: 3 };

/**
 * The realistic caller as the form edits it: every number as typed, so that a blank field means
 * "the default" (the SNR) or "off" (a behaviour's chance), and a chance in percent.
 */
export interface CallerDraft {
  snrDb: string;
  bargeIn: string;
  bargeInAfterMs: string;
  silence: string;
  silenceMs: string;
  backchannel: string;
  backchannelPhrases: string;
  hangup: string;
}

const typed = (n: number | undefined) => (n === undefined ? '' : String(n));
const percent = (probability: number | undefined) =>
  probability === undefined ? '' : String(Math.round(probability * 10_000) / 100);

/** The persona's noise and behaviours as the form edits them (a new persona: none). */
export function callerDraftOf(persona: Persona | null): CallerDraft {
  const b = persona?.behaviours;
  return {
    snrDb: typed(persona?.noise?.snrDb),
    bargeIn: percent(b?.bargeIn?.probability),
    bargeInAfterMs: typed(b?.bargeIn?.afterMs),
    silence: percent(b?.silence?.probability),
    silenceMs: typed(b?.silence?.ms),
    backchannel: percent(b?.backchannel?.probability),
    backchannelPhrases: (b?.backchannel?.phrases ?? []).join(', '),
    hangup: percent(b?.hangup?.probability),
  };
}

/** A typed number, or undefined when blank (the engine says why a bad one is bad). */
const numberOf = (text: string) => (text.trim() === '' ? undefined : Number(text));
const chanceOf = (text: string) => {
  const n = numberOf(text);
  return n === undefined ? undefined : n / 100;
};

/** What personas.create and personas.update take: null for the defaults and for no behaviour. */
export function callerOf(d: CallerDraft): Pick<PersonaForm, 'noise' | 'behaviours'> {
  const snrDb = numberOf(d.snrDb);
  const b: Behaviours = {};
  const bargeIn = chanceOf(d.bargeIn);
  const afterMs = numberOf(d.bargeInAfterMs);
  if (bargeIn !== undefined)
    b.bargeIn = { probability: bargeIn, ...(afterMs !== undefined ? { afterMs } : {}) };
  const silence = chanceOf(d.silence);
  const ms = numberOf(d.silenceMs);
  if (silence !== undefined)
    b.silence = { probability: silence, ...(ms !== undefined ? { ms } : {}) };
  const backchannel = chanceOf(d.backchannel);
  const phrases = d.backchannelPhrases
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (backchannel !== undefined)
    b.backchannel = { probability: backchannel, ...(phrases.length ? { phrases } : {}) };
  const hangup = chanceOf(d.hangup);
  if (hangup !== undefined) b.hangup = { probability: hangup };
  return {
    noise: snrDb === undefined ? null : { snrDb },
    behaviours: Object.keys(b).length ? b : null,
  };
}

/** A persona's realistic caller in words, for its detail. */
export function callerFacts(p: Persona): [string, string][] {
  const b = p.behaviours;
  const pct = (probability: number) => `${percent(probability)}% of agent turns`;
  const snr = p.noise
    ? `${p.noise.snrDb} dB SNR`
    : `${DEFAULT_SNR_DB[p.difficulty]} dB SNR (by difficulty)`;
  return [
    [
      'Background noise',
      p.backgroundNoise === 'none' ? 'none' : `${p.backgroundNoise.replace('_', ' ')} at ${snr}`,
    ],
    [
      'Barge-in',
      b?.bargeIn ? `${pct(b.bargeIn.probability)}, after ${b.bargeIn.afterMs ?? 1500} ms` : 'off',
    ],
    ['Silence', b?.silence ? `${pct(b.silence.probability)}, ${b.silence.ms ?? 6000} ms` : 'off'],
    [
      'Backchannel',
      b?.backchannel
        ? `${pct(b.backchannel.probability)}${b.backchannel.phrases ? ` (${b.backchannel.phrases.join(', ')})` : ''}`
        : 'off',
    ],
    ['Hang-up', b?.hangup ? pct(b.hangup.probability) : 'off'],
  ];
}

/** The draft being edited and the save's field errors, which every caller field shares. */
interface DraftProps {
  draft: CallerDraft;
  onChange: (draft: CallerDraft) => void;
  error: (path: string) => string | undefined;
}

/** The persona's background noise, and its difficulty (which sets the default SNR). */
interface NoiseProps {
  backgroundNoise: BackgroundNoise;
  onBackgroundNoise: (noise: BackgroundNoise) => void;
  difficulty: Difficulty;
}

/** One number of the draft, with the engine's error on its path (a chance's reworded). */
function CallerNumber({
  draft,
  onChange,
  error,
  k,
  label,
  path,
  help,
  extra = {},
}: DraftProps & {
  k: keyof CallerDraft;
  label: string;
  path: string;
  help: string;
  extra?: TextFieldProps;
}) {
  const problem = error(path);
  // The engine takes a probability (0 to 1); the form asks for a percentage.
  const shown =
    problem && path.endsWith('.probability')
      ? `must be 0 to 100% (probability ${problem})`
      : problem;
  return (
    <TextField
      label={label}
      type="number"
      value={draft[k]}
      onChange={(e) => onChange({ ...draft, [k]: e.target.value })}
      error={Boolean(problem)}
      helperText={shown ?? help}
      sx={{ flex: 1 }}
      {...extra}
    />
  );
}

/** The noise the caller speaks over, and how loud it is against the voice. */
function NoiseFields({
  backgroundNoise,
  onBackgroundNoise,
  difficulty,
  ...io
}: DraftProps & NoiseProps) {
  return (
    <Stack direction="row" spacing={1}>
      <TextField
        select
        label="Background noise"
        value={backgroundNoise}
        onChange={(e) => onBackgroundNoise(e.target.value as BackgroundNoise)}
        error={Boolean(io.error('backgroundNoise'))}
        helperText={io.error('backgroundNoise') ?? 'Played under the caller’s voice'}
        sx={{ flex: 1 }}
      >
        {BACKGROUNDS.map((n) => (
          <MenuItem key={n} value={n}>
            {n.replace('_', ' ')}
          </MenuItem>
        ))}
      </TextField>
      <CallerNumber
        {...io}
        k="snrDb"
        label="SNR (dB)"
        path="noise"
        help={`Blank: by difficulty (${DEFAULT_SNR_DB[difficulty]} dB when ${difficulty.replace('_', ' ')})${
          backgroundNoise === 'none' ? '; no effect without a background noise' : ''
        }`}
        extra={{ placeholder: String(DEFAULT_SNR_DB[difficulty]) }}
      />
    </Stack>
  );
}

/** A short sound of listening while the agent talks: its chance, and the phrases it picks from. */
function BackchannelFields(io: DraftProps) {
  const { draft, onChange, error } = io;
  return (
    <Stack direction="row" spacing={1}>
      <CallerNumber
        {...io}
        k="backchannel"
        label="Backchannel chance (%)"
        path="behaviours.backchannel.probability"
        help="A short “mm-hmm” while the agent talks"
      />
      <TextField
        label="Backchannel phrases"
        value={draft.backchannelPhrases}
        placeholder="mm-hmm, okay, uh-huh, right, yeah"
        onChange={(e) => onChange({ ...draft, backchannelPhrases: e.target.value })}
        error={Boolean(error('behaviours.backchannel.phrases'))}
        helperText={
          error('behaviours.backchannel.phrases') ?? 'Comma-separated; blank: mm-hmm, okay…'
        }
        sx={{ flex: 1 }}
      />
    </Stack>
  );
}

/** What the caller does while the agent talks, each by chance on an agent turn. */
function BehaviourFields(io: DraftProps) {
  return (
    <>
      <Stack direction="row" spacing={1}>
        <CallerNumber
          {...io}
          k="bargeIn"
          label="Barge-in chance (%)"
          path="behaviours.bargeIn.probability"
          help="Talks over the agent"
        />
        <CallerNumber
          {...io}
          k="bargeInAfterMs"
          label="Barge in after (ms)"
          path="behaviours.bargeIn.afterMs"
          help="Of agent speech; blank: 1500"
          extra={{ placeholder: '1500' }}
        />
      </Stack>
      <Stack direction="row" spacing={1}>
        <CallerNumber
          {...io}
          k="silence"
          label="Silence chance (%)"
          path="behaviours.silence.probability"
          help="Says nothing when it should answer"
        />
        <CallerNumber
          {...io}
          k="silenceMs"
          label="Silence (ms)"
          path="behaviours.silence.ms"
          help="Blank: 6000"
          extra={{ placeholder: '6000' }}
        />
      </Stack>
      <BackchannelFields {...io} />
      <Stack direction="row" spacing={1}>
        <CallerNumber
          {...io}
          k="hangup"
          label="Hang-up chance (%)"
          path="behaviours.hangup.probability"
          help="Hangs up while the agent talks"
          extra={{ sx: { width: '50%', pr: 0.5 } }}
        />
      </Stack>
    </>
  );
}

/**
 * Audio mode: the noise the caller speaks over and what it does on the call, each behaviour by
 * chance on every agent turn. Blank SNR: by difficulty; blank chance: never.
 */
export function CallerFields({
  backgroundNoise,
  onBackgroundNoise,
  difficulty,
  ...io
}: DraftProps & NoiseProps) {
  return (
    <Stack spacing={2} role="group" aria-labelledby="audio-caller-title">
      <Box>
        <Typography id="audio-caller-title" variant="subtitle1" component="h3">
          Audio caller
        </Typography>
        <Typography variant="body2" color="text.secondary">
          In audio simulations: the noise around the caller, and what it does while the agent talks.
          Each behaviour happens by chance on an agent turn; a blank chance is off.
        </Typography>
      </Box>
      <NoiseFields
        {...io}
        backgroundNoise={backgroundNoise}
        onBackgroundNoise={onBackgroundNoise}
        difficulty={difficulty}
      />
      <BehaviourFields {...io} />
    </Stack>
  );
}
