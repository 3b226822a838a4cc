import {
  Button,
  Chip,
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
import { PERSONA_DIFFICULTIES, PERSONA_EMOTIONS } from '../generated/catalogue-enums';
import { usePersonas } from '../stores/resources';
import { client, wsInput } from '../stores/session';
import { fieldError, fmtDate, fmtNum, useAction } from '../ui/common';
import { EditorDialog } from '../ui/EditorDialog';
import { ResourcePage, useEditor } from '../ui/ResourcePage';
import { EmptyState } from '../ui/EmptyState';
import { RowActions } from '../ui/RowActions';
import { CallerFields, callerDraftOf, callerOf, type CallerDraft } from '../ui/PersonaCallerFields';
import { PersonaDetails } from '../ui/PersonaDetails';
import { VoiceFields } from '../ui/PersonaVoiceFields';

/** What the editor edits: the whole persona, as personas.get answers it. */
type Persona = OutputOf<'personas.get'>['persona'];
type PersonaForm = Omit<InputOf<'personas.create'>, 'workspace_id'>;
type PersonaRow = OutputOf<'personas.list'>['personas'][number];
type Emotion = NonNullable<PersonaForm['emotion']>;
type Difficulty = NonNullable<PersonaForm['difficulty']>;

// The catalogue's own lists, generated from it (npm run gen:operations).
const EMOTIONS: readonly Emotion[] = PERSONA_EMOTIONS;
const DIFFICULTIES: readonly Difficulty[] = PERSONA_DIFFICULTIES;
const SORTS = [
  ['createdAt', 'Created'],
  ['updatedAt', 'Updated'],
  ['name', 'Name'],
  ['usage', 'Usage'],
];

/** The editor's form: the persona's fields but its noise and behaviours (a draft of their own). */
const formOf = (persona: Persona | null): PersonaForm =>
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
      };

/** Who the persona is: name, prompt, language, emotion, difficulty and tags. */
function PersonaBasicFields({
  form,
  onChange,
  error,
}: {
  form: PersonaForm;
  onChange: (form: PersonaForm) => void;
  error: (k: string) => string | undefined;
}) {
  const text = (
    k: 'name' | 'prompt' | 'language' | 'emotion' | 'difficulty',
    label: string,
    extra: TextFieldProps = {},
  ) => (
    <TextField
      label={label}
      value={form[k] ?? ''}
      onChange={(e) => onChange({ ...form, [k]: e.target.value })}
      error={Boolean(error(k))}
      helperText={error(k)}
      {...extra}
    />
  );
  return (
    <>
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
          onChange({
            ...form,
            tags: e.target.value
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          })
        }
      />
    </>
  );
}

/** The persona editor's fields by engine path: an error on one is said under it, not twice. */
const PERSONA_FIELDS = {
  name: 'Name',
  prompt: 'Who they are and how they speak',
  language: 'Language',
  emotion: 'Emotion',
  difficulty: 'Difficulty',
  voice: 'Voice',
  backgroundNoise: 'Background noise',
  noise: 'SNR (dB)',
  behaviours: 'Audio caller',
};

function PersonaEditor({
  persona,
  onClose,
}: {
  persona: Persona | null;
  onClose: (saved: boolean) => void;
}) {
  const [form, setForm] = useState<PersonaForm>(() => formOf(persona));
  const [caller, setCaller] = useState<CallerDraft>(() => callerDraftOf(persona));
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
  return (
    <EditorDialog
      title={persona ? 'Edit persona' : 'New persona'}
      saveLabel="Save persona"
      save={save}
      onClose={() => onClose(false)}
      fields={PERSONA_FIELDS}
    >
      <PersonaBasicFields form={form} onChange={setForm} error={(k) => fieldError(save.error, k)} />
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
    </EditorDialog>
  );
}

/** The list's filters and order, as typed: a blank one is left out of the query. */
const NO_FILTERS = {
  name: '',
  language: '',
  emotion: '',
  difficulty: '',
  tags: '',
  createdBy: '',
  sortBy: 'createdAt',
  sortOrder: 'desc',
};
type Filters = typeof NO_FILTERS;

function PersonaFilters({
  q,
  set,
}: {
  q: Filters;
  set: (k: keyof Filters) => (e: { target: { value: string } }) => void;
}) {
  const text = (k: keyof Filters, label: string, width?: number) => (
    <TextField
      size="small"
      label={label}
      value={q[k]}
      onChange={set(k)}
      sx={width ? { width } : undefined}
    />
  );
  const pick = (k: keyof Filters, label: string, width: number, options: string[][]) => (
    <TextField size="small" select label={label} value={q[k]} onChange={set(k)} sx={{ width }}>
      {options.map(([v, l]) => (
        <MenuItem key={v} value={v}>
          {l}
        </MenuItem>
      ))}
    </TextField>
  );
  const any = (values: readonly string[]) => [['', 'any'], ...values.map((v) => [v, v])];
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ mb: 2, flexWrap: 'wrap' }}
      role="search"
      aria-label="Filter personas"
    >
      {text('name', 'Name')}
      {text('language', 'Language', 110)}
      {pick('emotion', 'Emotion', 140, any(EMOTIONS))}
      {pick('difficulty', 'Difficulty', 140, any(DIFFICULTIES))}
      {text('tags', 'Tags', 140)}
      {text('createdBy', 'Created by (user id)', 180)}
      {pick('sortBy', 'Sort by', 130, SORTS)}
      {pick('sortOrder', 'Order', 110, [
        ['asc', 'ascending'],
        ['desc', 'descending'],
      ])}
    </Stack>
  );
}

const COLUMNS = [
  'Name',
  'Language',
  'Emotion',
  'Difficulty',
  'Noise',
  'Tags',
  'Simulations',
  'Avg score',
  'Updated',
];

function PersonaTable({
  items,
  onView,
  onEdit,
  onDelete,
}: {
  items: PersonaRow[];
  onView: (id: string) => void;
  onEdit: (id: string) => void;
  onDelete: (id: string) => unknown;
}) {
  return (
    <Table size="small" aria-label="Personas">
      <TableHead>
        <TableRow>
          {COLUMNS.map((c) => (
            <TableCell key={c}>{c}</TableCell>
          ))}
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
            <RowActions
              onEdit={() => onEdit(p.id)}
              remove={{
                kind: 'persona',
                name: p.name,
                consequence: 'It is gone for good; past simulations keep their transcripts.',
                onConfirm: () => onDelete(p.id),
                check: () =>
                  client().invoke('personas.delete', wsInput({ persona_id: p.id, dryRun: true })),
              }}
            >
              <Button size="small" onClick={() => onView(p.id)}>
                Details
              </Button>
            </RowActions>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** One page of the personas, as filtered and ordered: loaded again whenever any of them changes. */
function usePersonaPage() {
  const { items, total, error, load } = usePersonas();
  const [q, setQ] = useState(NO_FILTERS);
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(25);
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
  const reload = () => load(query());
  return { items, total, error, reload, q, set, page, setPage, rowsPerPage, setRowsPerPage };
}

const filtered = (q: Filters) =>
  (['name', 'language', 'emotion', 'difficulty', 'tags', 'createdBy'] as const).some((k) => q[k]);

/** The empty list: nothing matches the filters, or there is no persona yet (then, make one). */
function NoPersonas({ filtered, onNew }: { filtered: boolean; onNew: () => void }) {
  return filtered ? (
    <EmptyState text="No persona matches these filters." />
  ) : (
    <EmptyState
      text="No personas yet. A persona is who calls your agent."
      actionLabel="Create your first persona"
      onAction={onNew}
    />
  );
}

export function Personas() {
  const { items, total, error, reload, q, set, page, setPage, rowsPerPage, setRowsPerPage } =
    usePersonaPage();
  const editor = useEditor<Persona>(reload);
  const [viewing, setViewing] = useState<string | null>(null);
  const remove = useAction(async (id: string) => {
    await client().invoke('personas.delete', wsInput({ persona_id: id }));
    await reload();
  });
  const edit = async (id: string) =>
    editor.open((await client().invoke('personas.get', wsInput({ persona_id: id }))).persona);
  return (
    <ResourcePage
      title="Personas"
      newLabel="New persona"
      onNew={() => editor.open(null)}
      filters={<PersonaFilters q={q} set={set} />}
      error={error ?? remove.error}
    >
      <PersonaTable
        items={items}
        onView={setViewing}
        onEdit={(id) => void edit(id)}
        onDelete={(id) => remove.run(id)}
      />
      {total === 0 && !error && (
        <NoPersonas filtered={filtered(q)} onNew={() => editor.open(null)} />
      )}
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
        <PersonaDetails
          id={viewing}
          onClose={() => setViewing(null)}
          onEdit={(persona) => {
            setViewing(null);
            editor.open(persona);
          }}
        />
      )}
      {editor.editing !== undefined && (
        <PersonaEditor persona={editor.editing} onClose={editor.close} />
      )}
    </ResourcePage>
  );
}
