import {
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TablePagination,
  TableRow,
  TextField,
  Typography,
  type TextFieldProps,
} from '@mui/material';
import { useEffect, useState } from 'react';
import type { InputOf, OutputOf } from '../client';
import { usePersonas } from '../stores/resources';
import { client, wsInput } from '../stores/session';
import {
  ActionButton,
  ConfirmButton,
  ErrorNote,
  Page,
  fieldError,
  fmtDate,
  fmtNum,
  useAction,
  useLoad,
} from '../ui/common';

/** What the editor edits: the whole persona, as personas.get answers it. */
type Persona = OutputOf<'personas.get'>['persona'];
type PersonaForm = Omit<InputOf<'personas.create'>, 'workspace_id'>;
type Emotion = NonNullable<PersonaForm['emotion']>;
type Difficulty = NonNullable<PersonaForm['difficulty']>;
type BackgroundNoise = NonNullable<PersonaForm['backgroundNoise']>;
type Behaviours = NonNullable<PersonaForm['behaviours']>;

// Keys of a record over the catalogue's own enums: adding a value there fails to compile here.
const EMOTION_SET: Record<Emotion, true> = {
  neutral: true,
  happy: true,
  calm: true,
  confused: true,
  frustrated: true,
  angry: true,
  anxious: true,
  impatient: true,
  sad: true,
  skeptical: true,
};
const DIFFICULTY_SET: Record<Difficulty, true> = {
  easy: true,
  medium: true,
  hard: true,
  very_hard: true,
};
const BACKGROUND_SET: Record<BackgroundNoise, true> = {
  none: true,
  office: true,
  call_center: true,
  home: true,
  street: true,
  traffic: true,
  car: true,
  train: true,
  airport: true,
  cafe: true,
  restaurant: true,
  crowd: true,
  construction: true,
  wind: true,
};
const EMOTIONS = Object.keys(EMOTION_SET) as Emotion[];
const DIFFICULTIES = Object.keys(DIFFICULTY_SET) as Difficulty[];
const BACKGROUNDS = Object.keys(BACKGROUND_SET) as BackgroundNoise[];
/** The engine's SNR when a persona sets none: harder callers are noisier. */
const DEFAULT_SNR_DB: Record<Difficulty, number> = { easy: 25, medium: 15, hard: 8, very_hard: 3 };
const SORTS = [
  ['createdAt', 'Created'],
  ['updatedAt', 'Updated'],
  ['name', 'Name'],
  ['usage', 'Usage'],
];

type Voice = NonNullable<PersonaForm['voice']>;
const VOICE_ENGINES: Record<Voice['engine'], string> = {
  system: 'System voice (offline)',
  openai: 'OpenAI-compatible',
  elevenlabs: 'ElevenLabs',
};

/** How the persona sounds in audio simulations: an engine, a voice of it, a speed. */
function VoiceFields({
  voice,
  onChange,
  error,
}: {
  voice: Voice | null;
  onChange: (voice: Voice | null) => void;
  error: (k: string) => string | undefined;
}) {
  const v = voice ?? { engine: 'system' as const, voiceId: null, speed: null };
  return (
    <Stack direction="row" spacing={1} role="group" aria-label="Voice in audio simulations">
      <TextField
        select
        label="Voice engine"
        value={v.engine}
        onChange={(e) => onChange({ ...v, engine: e.target.value as Voice['engine'] })}
        error={Boolean(error('engine'))}
        helperText={error('engine') ?? 'How the caller sounds in audio mode'}
        sx={{ minWidth: 200 }}
      >
        {Object.entries(VOICE_ENGINES).map(([k, label]) => (
          <MenuItem key={k} value={k}>
            {label}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label="Voice"
        value={v.voiceId ?? ''}
        placeholder={v.engine === 'system' ? 'en-us' : v.engine === 'openai' ? 'alloy' : 'voice id'}
        onChange={(e) => onChange({ ...v, voiceId: e.target.value || null })}
        error={Boolean(error('voiceId'))}
        helperText={error('voiceId')}
      />
      <TextField
        label="Speed"
        type="number"
        value={v.speed ?? ''}
        placeholder="1"
        onChange={(e) => onChange({ ...v, speed: e.target.value ? Number(e.target.value) : null })}
        error={Boolean(error('speed'))}
        helperText={error('speed') ?? '0.5 to 2'}
        sx={{ width: 120 }}
      />
    </Stack>
  );
}

/**
 * The realistic caller as the form edits it: every number as typed, so that a blank field means
 * "the default" (the SNR) or "off" (a behaviour's chance), and a chance in percent.
 */
interface CallerDraft {
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

function draftOf(persona: Persona | null): CallerDraft {
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
function callerOf(d: CallerDraft): Pick<PersonaForm, 'noise' | 'behaviours'> {
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

/**
 * Audio mode: the noise the caller speaks over and what it does on the call, each behaviour by
 * chance on every agent turn. Blank SNR: by difficulty; blank chance: never.
 */
function CallerFields({
  draft,
  onChange,
  backgroundNoise,
  onBackgroundNoise,
  difficulty,
  error,
}: {
  draft: CallerDraft;
  onChange: (draft: CallerDraft) => void;
  backgroundNoise: BackgroundNoise;
  onBackgroundNoise: (noise: BackgroundNoise) => void;
  difficulty: Difficulty;
  error: (path: string) => string | undefined;
}) {
  const field = (
    k: keyof CallerDraft,
    label: string,
    path: string,
    help: string,
    extra: TextFieldProps = {},
  ) => {
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
  };
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
      <Stack direction="row" spacing={1}>
        <TextField
          select
          label="Background noise"
          value={backgroundNoise}
          onChange={(e) => onBackgroundNoise(e.target.value as BackgroundNoise)}
          error={Boolean(error('backgroundNoise'))}
          helperText={error('backgroundNoise') ?? 'Played under the caller’s voice'}
          sx={{ flex: 1 }}
        >
          {BACKGROUNDS.map((n) => (
            <MenuItem key={n} value={n}>
              {n.replace('_', ' ')}
            </MenuItem>
          ))}
        </TextField>
        {field(
          'snrDb',
          'SNR (dB)',
          'noise',
          `Blank: by difficulty (${DEFAULT_SNR_DB[difficulty]} dB when ${difficulty.replace('_', ' ')})${
            backgroundNoise === 'none' ? '; no effect without a background noise' : ''
          }`,
          { placeholder: String(DEFAULT_SNR_DB[difficulty]) },
        )}
      </Stack>
      <Stack direction="row" spacing={1}>
        {field(
          'bargeIn',
          'Barge-in chance (%)',
          'behaviours.bargeIn.probability',
          'Talks over the agent',
        )}
        {field(
          'bargeInAfterMs',
          'Barge in after (ms)',
          'behaviours.bargeIn.afterMs',
          'Of agent speech; blank: 1500',
          { placeholder: '1500' },
        )}
      </Stack>
      <Stack direction="row" spacing={1}>
        {field(
          'silence',
          'Silence chance (%)',
          'behaviours.silence.probability',
          'Says nothing when it should answer',
        )}
        {field('silenceMs', 'Silence (ms)', 'behaviours.silence.ms', 'Blank: 6000', {
          placeholder: '6000',
        })}
      </Stack>
      <Stack direction="row" spacing={1}>
        {field(
          'backchannel',
          'Backchannel chance (%)',
          'behaviours.backchannel.probability',
          'A short “mm-hmm” while the agent talks',
        )}
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
      <Stack direction="row" spacing={1}>
        {field(
          'hangup',
          'Hang-up chance (%)',
          'behaviours.hangup.probability',
          'Hangs up while the agent talks',
          { sx: { width: '50%', pr: 0.5 } },
        )}
      </Stack>
    </Stack>
  );
}

/** A persona's realistic caller in words, for its detail. */
function callerFacts(p: Persona): [string, string][] {
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

/** One persona, as personas.get answers it: who it is, its voice and its realistic caller. */
function PersonaDetail({
  id,
  onClose,
  onEdit,
}: {
  id: string;
  onClose: () => void;
  onEdit: (persona: Persona) => void;
}) {
  const got = useLoad(() => client().invoke('personas.get', wsInput({ persona_id: id })), [id]);
  const p = got.data?.persona;
  const voice = p?.voice;
  return (
    <Dialog open onClose={onClose} fullWidth aria-labelledby="persona-detail-title">
      <DialogTitle id="persona-detail-title">{p ? p.name : 'Persona'}</DialogTitle>
      <DialogContent>
        <ErrorNote error={got.error} />
        {p && (
          <Stack spacing={2}>
            <Typography sx={{ whiteSpace: 'pre-wrap' }}>{p.prompt}</Typography>
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
              <Chip size="small" label={p.language} />
              <Chip size="small" label={p.emotion} />
              <Chip size="small" label={p.difficulty.replace('_', ' ')} />
              {p.tags.map((t) => (
                <Chip key={t} size="small" variant="outlined" label={t} />
              ))}
            </Stack>
            <Box component="section" aria-label="Audio caller">
              <Typography variant="subtitle1" component="h3">
                Audio caller
              </Typography>
              <Box
                component="dl"
                sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: 1, m: 0 }}
              >
                <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
                  Voice
                </Typography>
                <Typography component="dd" variant="body2" sx={{ m: 0 }}>
                  {voice
                    ? `${VOICE_ENGINES[voice.engine]}${voice.voiceId ? `, ${voice.voiceId}` : ''}${voice.speed ? ` at ${voice.speed}×` : ''}`
                    : VOICE_ENGINES.system}
                </Typography>
                {callerFacts(p).map(([label, value]) => (
                  <Box key={label} sx={{ display: 'contents' }}>
                    <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
                      {label}
                    </Typography>
                    <Typography component="dd" variant="body2" sx={{ m: 0 }}>
                      {value}
                    </Typography>
                  </Box>
                ))}
              </Box>
            </Box>
          </Stack>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" disabled={!p} onClick={() => p && onEdit(p)}>
          Edit
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function PersonaEditor({
  persona,
  onClose,
}: {
  persona: Persona | null;
  onClose: (saved: boolean) => void;
}) {
  const [form, setForm] = useState<PersonaForm>(() =>
    persona
      ? {
          name: persona.name,
          prompt: persona.prompt,
          language: persona.language,
          emotion: persona.emotion,
          difficulty: persona.difficulty,
          backgroundNoise: persona.backgroundNoise,
          tags: persona.tags,
          voice: persona.voice,
        }
      : {
          name: '',
          prompt: '',
          language: 'en',
          emotion: 'neutral',
          difficulty: 'medium',
          backgroundNoise: 'none',
          tags: [],
          voice: null,
        },
  );
  const [caller, setCaller] = useState<CallerDraft>(() => draftOf(persona));
  const save = useAction(async () => {
    const body = {
      name: form.name,
      prompt: form.prompt,
      language: form.language,
      emotion: form.emotion,
      difficulty: form.difficulty,
      backgroundNoise: form.backgroundNoise,
      tags: form.tags,
      voice: form.voice ?? null,
      ...callerOf(caller),
    };
    if (persona)
      await client().invoke('personas.update', wsInput({ persona_id: persona.id, ...body }));
    else await client().invoke('personas.create', wsInput(body));
    onClose(true);
  });
  const text = (
    k: 'name' | 'prompt' | 'language' | 'emotion' | 'difficulty',
    label: string,
    extra: TextFieldProps = {},
  ) => (
    <TextField
      label={label}
      value={form[k] ?? ''}
      onChange={(e) => setForm({ ...form, [k]: e.target.value })}
      error={Boolean(fieldError(save.error, k))}
      helperText={fieldError(save.error, k)}
      {...extra}
    />
  );
  return (
    <Dialog open onClose={() => onClose(false)} fullWidth>
      <DialogTitle>{persona ? 'Edit persona' : 'New persona'}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          {text('name', 'Name')}
          {text('prompt', 'Who they are and how they speak', { multiline: true, minRows: 3 })}
          {text('language', 'Language (BCP 47, e.g. en-US)')}
          {text('emotion', 'Emotion', {
            select: true,
            children: EMOTIONS.map((e) => (
              <MenuItem key={e} value={e}>
                {e}
              </MenuItem>
            )),
          })}
          {text('difficulty', 'Difficulty', {
            select: true,
            children: DIFFICULTIES.map((e) => (
              <MenuItem key={e} value={e}>
                {e.replace('_', ' ')}
              </MenuItem>
            )),
          })}
          <TextField
            label="Tags (comma-separated)"
            value={(form.tags ?? []).join(', ')}
            onChange={(e) =>
              setForm({
                ...form,
                tags: e.target.value
                  .split(',')
                  .map((t) => t.trim())
                  .filter(Boolean),
              })
            }
          />
          <VoiceFields
            voice={form.voice ?? null}
            onChange={(voice) => setForm({ ...form, voice })}
            error={(k) => fieldError(save.error, `voice.${k}`) ?? fieldError(save.error, 'voice')}
          />
          <CallerFields
            draft={caller}
            onChange={setCaller}
            backgroundNoise={form.backgroundNoise ?? 'none'}
            onBackgroundNoise={(backgroundNoise) => setForm({ ...form, backgroundNoise })}
            difficulty={form.difficulty ?? 'medium'}
            error={(path) => fieldError(save.error, path)}
          />
          <ErrorNote error={save.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => onClose(false)}>Cancel</Button>
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          Save persona
        </ActionButton>
      </DialogActions>
    </Dialog>
  );
}

export function Personas() {
  const { items, total, error, load } = usePersonas();
  const [q, setQ] = useState({
    name: '',
    language: '',
    emotion: '',
    difficulty: '',
    tags: '',
    createdBy: '',
    sortBy: 'createdAt',
    sortOrder: 'desc',
  });
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(25);
  const [editing, setEditing] = useState<Persona | null | undefined>(undefined);
  const [viewing, setViewing] = useState<string | null>(null);
  const query = () => ({
    ...Object.fromEntries(Object.entries(q).filter(([, v]) => v)),
    limit: rowsPerPage,
    offset: page * rowsPerPage,
  });
  useEffect(() => void load(query()), [q, page, rowsPerPage]);
  const set = (k: keyof typeof q) => (e: { target: { value: string } }) => {
    setPage(0);
    setQ({ ...q, [k]: e.target.value });
  };
  const remove = useAction(async (id: string) => {
    await client().invoke('personas.delete', wsInput({ persona_id: id }));
    await load(query());
  });
  return (
    <Page
      title="Personas"
      actions={
        <Button variant="contained" onClick={() => setEditing(null)}>
          New persona
        </Button>
      }
    >
      <Stack
        direction="row"
        spacing={1}
        sx={{ mb: 2, flexWrap: 'wrap' }}
        role="search"
        aria-label="Filter personas"
      >
        <TextField size="small" label="Name" value={q.name} onChange={set('name')} />
        <TextField
          size="small"
          label="Language"
          value={q.language}
          onChange={set('language')}
          sx={{ width: 110 }}
        />
        <TextField
          size="small"
          select
          label="Emotion"
          value={q.emotion}
          onChange={set('emotion')}
          sx={{ width: 140 }}
        >
          <MenuItem value="">any</MenuItem>
          {EMOTIONS.map((e) => (
            <MenuItem key={e} value={e}>
              {e}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          select
          label="Difficulty"
          value={q.difficulty}
          onChange={set('difficulty')}
          sx={{ width: 140 }}
        >
          <MenuItem value="">any</MenuItem>
          {DIFFICULTIES.map((e) => (
            <MenuItem key={e} value={e}>
              {e}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          label="Tags"
          value={q.tags}
          onChange={set('tags')}
          sx={{ width: 140 }}
        />
        <TextField
          size="small"
          label="Created by (user id)"
          value={q.createdBy}
          onChange={set('createdBy')}
          sx={{ width: 180 }}
        />
        <TextField
          size="small"
          select
          label="Sort by"
          value={q.sortBy}
          onChange={set('sortBy')}
          sx={{ width: 130 }}
        >
          {SORTS.map(([v, l]) => (
            <MenuItem key={v} value={v}>
              {l}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          select
          label="Order"
          value={q.sortOrder}
          onChange={set('sortOrder')}
          sx={{ width: 110 }}
        >
          <MenuItem value="asc">ascending</MenuItem>
          <MenuItem value="desc">descending</MenuItem>
        </TextField>
      </Stack>
      <ErrorNote error={error ?? remove.error} />
      <Table size="small" aria-label="Personas">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Language</TableCell>
            <TableCell>Emotion</TableCell>
            <TableCell>Difficulty</TableCell>
            <TableCell>Noise</TableCell>
            <TableCell>Tags</TableCell>
            <TableCell>Simulations</TableCell>
            <TableCell>Avg score</TableCell>
            <TableCell>Updated</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((p) => (
            <TableRow key={p.id} hover>
              <TableCell>{p.name}</TableCell>
              <TableCell>{p.language}</TableCell>
              <TableCell>{p.emotion}</TableCell>
              <TableCell>{p.difficulty}</TableCell>
              <TableCell>{p.backgroundNoise.replace('_', ' ')}</TableCell>
              <TableCell>
                {(p.tags ?? []).map((t: string) => (
                  <Chip key={t} size="small" label={t} sx={{ mr: 0.5 }} />
                ))}
              </TableCell>
              <TableCell>{p.usage_stats?.total_simulations ?? 0}</TableCell>
              <TableCell>{fmtNum(p.usage_stats?.avg_score)}</TableCell>
              <TableCell>{fmtDate(p.updated_at)}</TableCell>
              <TableCell>
                <Button size="small" onClick={() => setViewing(p.id)}>
                  Details
                </Button>
                <Button
                  size="small"
                  onClick={() =>
                    void (async () =>
                      setEditing(
                        (await client().invoke('personas.get', wsInput({ persona_id: p.id })))
                          .persona,
                      ))()
                  }
                >
                  Edit
                </Button>
                <ConfirmButton
                  size="small"
                  question={`Delete the persona "${p.name}"?`}
                  consequence="It is gone for good; past simulations keep their transcripts."
                  confirmLabel="Delete persona"
                  onConfirm={() => remove.run(p.id)}
                >
                  Delete
                </ConfirmButton>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <TablePagination
        component="div"
        count={total}
        page={page}
        rowsPerPage={rowsPerPage}
        rowsPerPageOptions={[10, 25, 50, 100]}
        onPageChange={(_e, p) => setPage(p)}
        onRowsPerPageChange={(e) => {
          setRowsPerPage(Number(e.target.value));
          setPage(0);
        }}
      />
      {viewing && (
        <PersonaDetail
          id={viewing}
          onClose={() => setViewing(null)}
          onEdit={(persona) => {
            setViewing(null);
            setEditing(persona);
          }}
        />
      )}
      {editing !== undefined && (
        <PersonaEditor
          persona={editing}
          onClose={(saved) => {
            setEditing(undefined);
            if (saved) void load(query());
          }}
        />
      )}
    </Page>
  );
}
