import { Checkbox, FormControlLabel, MenuItem, Stack, TextField } from '@mui/material';
import { RowList } from './RowList';
import { numberOf, recordOf, textOf, withField, type Row } from './rowValues';

// The types a prompt variable may declare (the engine's PROMPT_VARIABLE_TYPES; a stored one may be
// any text, which is then offered too).
const VARIABLE_TYPES = ['string', 'number', 'boolean', 'date'];

/** One `{{variable}}`: its name, type and the value used when an execution gives none. */
function VariableRow({ variable, onChange }: { variable: Row; onChange: (v: Row) => void }) {
  const type = textOf(variable.type);
  const types = type && !VARIABLE_TYPES.includes(type) ? [...VARIABLE_TYPES, type] : VARIABLE_TYPES;
  return (
    <Stack direction="row" spacing={1}>
      <TextField
        label="Variable name"
        value={textOf(variable.name)}
        helperText="as written between {{ }}"
        onChange={(e) => onChange({ ...variable, name: e.target.value })}
        sx={{ flex: 1 }}
      />
      <TextField
        select
        label="Variable type"
        value={type}
        onChange={(e) => onChange({ ...variable, type: e.target.value })}
        sx={{ width: 160 }}
      >
        {types.map((t) => (
          <MenuItem key={t} value={t}>
            {t}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label="Default value"
        value={textOf(variable.defaultValue)}
        onChange={(e) => onChange({ ...variable, defaultValue: e.target.value })}
        sx={{ flex: 1 }}
      />
    </Stack>
  );
}

/** A scenario's prompt variables as rows. */
export function VariablesForm({
  rows,
  onChange,
}: {
  rows: Row[];
  onChange: (rows: Row[]) => void;
}) {
  return (
    <RowList
      name="variable"
      rows={rows}
      onChange={onChange}
      newRow={() => ({ name: '', type: 'string', defaultValue: '' })}
      empty="No variable: the situation uses no {{variable}}."
      renderRow={(variable, update) => <VariableRow variable={variable} onChange={update} />}
    />
  );
}

/** What the agent's reply must show after the line: words, a pattern, a tool it called. */
function ExpectFields({ line, onChange }: { line: Row; onChange: (line: Row) => void }) {
  const expectation = recordOf(line.expect);
  const field = (key: string, label: string) => (
    <TextField
      label={label}
      value={textOf(expectation[key])}
      onChange={(e) => {
        const next = withField(expectation, key, e.target.value || undefined);
        onChange(withField(line, 'expect', Object.keys(next).length ? next : undefined));
      }}
      sx={{ flex: 1 }}
    />
  );
  return (
    <Stack direction="row" spacing={1}>
      {field('contains', 'Reply contains')}
      {field('regex', 'Reply matches (regex)')}
      {field('toolCalled', 'Tool called')}
    </Stack>
  );
}

/** A timing act ({afterMs} or {ms}) as one number: blank leaves the act out. */
function TimingField(props: {
  line: Row;
  onChange: (line: Row) => void;
  act: 'interrupt' | 'backchannel' | 'silence';
  unit: 'afterMs' | 'ms';
  label: string;
}) {
  const { line, onChange, act, unit, label } = props;
  return (
    <TextField
      label={label}
      type="number"
      value={textOf(recordOf(line[act])[unit])}
      onChange={(e) => {
        const next = numberOf(e.target.value);
        onChange(withField(line, act, next === undefined ? undefined : { [unit]: next }));
      }}
      sx={{ flex: 1 }}
    />
  );
}

/** What the caller does besides talking, in audio calls (ScriptLineActs in the engine). */
function ActFields({ line, onChange }: { line: Row; onChange: (line: Row) => void }) {
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <TimingField
        line={line}
        onChange={onChange}
        act="silence"
        unit="ms"
        label="Silence before (ms)"
      />
      <TimingField
        line={line}
        onChange={onChange}
        act="interrupt"
        unit="afterMs"
        label="Barge in after (ms)"
      />
      <TimingField
        line={line}
        onChange={onChange}
        act="backchannel"
        unit="afterMs"
        label="Backchannel after (ms)"
      />
      <TextField
        label="Keypad digits (DTMF)"
        value={textOf(line.dtmf)}
        onChange={(e) => onChange(withField(line, 'dtmf', e.target.value || undefined))}
        sx={{ flex: 1 }}
      />
      <FormControlLabel
        label="Hang up after"
        control={
          <Checkbox
            checked={line.hangup === true}
            onChange={(e) => onChange(withField(line, 'hangup', e.target.checked || undefined))}
          />
        }
      />
    </Stack>
  );
}

/** One line of the caller's script: what it says, its reference answer, what the reply must show, and its acts. */
function ScriptLineRow({ line, onChange }: { line: Row; onChange: (line: Row) => void }) {
  return (
    <Stack spacing={1}>
      <TextField
        label="Say"
        value={textOf(line.say)}
        helperText="{{variables}} allowed; optional on a line that only acts"
        onChange={(e) => onChange(withField(line, 'say', e.target.value || undefined))}
      />
      <TextField
        label="Reference answer (optional)"
        value={textOf(line.reference)}
        multiline
        helperText="A good reply to this line: the judge sees it beside the turn (up to 5,000 characters)"
        onChange={(e) => onChange(withField(line, 'reference', e.target.value || undefined))}
      />
      <ExpectFields line={line} onChange={onChange} />
      <ActFields line={line} onChange={onChange} />
    </Stack>
  );
}

/** A scripted caller's lines as rows; the acts other than words are for audio calls. */
export function ScriptForm({ rows, onChange }: { rows: Row[]; onChange: (rows: Row[]) => void }) {
  return (
    <RowList
      name="script line"
      rows={rows}
      onChange={onChange}
      newRow={() => ({})}
      empty="No script: a model plays the caller from the situation and the persona."
      renderRow={(line, update) => <ScriptLineRow line={line} onChange={update} />}
    />
  );
}
