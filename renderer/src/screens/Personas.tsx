import {
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
} from '../ui/common';

/** What the editor edits: the whole persona, as personas.get answers it. */
type Persona = OutputOf<'personas.get'>['persona'];
type PersonaForm = Omit<InputOf<'personas.create'>, 'workspace_id'>;
type Emotion = NonNullable<PersonaForm['emotion']>;
type Difficulty = NonNullable<PersonaForm['difficulty']>;

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
const EMOTIONS = Object.keys(EMOTION_SET) as Emotion[];
const DIFFICULTIES = Object.keys(DIFFICULTY_SET) as Difficulty[];
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
          tags: persona.tags,
          voice: persona.voice,
        }
      : {
          name: '',
          prompt: '',
          language: 'en',
          emotion: 'neutral',
          difficulty: 'medium',
          tags: [],
          voice: null,
        },
  );
  const save = useAction(async () => {
    const body = {
      name: form.name,
      prompt: form.prompt,
      language: form.language,
      emotion: form.emotion,
      difficulty: form.difficulty,
      tags: form.tags,
      voice: form.voice ?? null,
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
              <TableCell>
                {(p.tags ?? []).map((t: string) => (
                  <Chip key={t} size="small" label={t} sx={{ mr: 0.5 }} />
                ))}
              </TableCell>
              <TableCell>{p.usage_stats?.total_simulations ?? 0}</TableCell>
              <TableCell>{fmtNum(p.usage_stats?.avg_score)}</TableCell>
              <TableCell>{fmtDate(p.updated_at)}</TableCell>
              <TableCell>
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
