import { useState } from 'react';
import { Checkbox, FormControlLabel, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { RowList } from './RowList';
import { isRow, numberOf, recordOf, rowsOf, textOf, withField, type Row } from './rowValues';

// The engine's lists (src/tools/definition.ts): the methods an http tool uses, its auth kinds with
// their fields, and a parameter's types. The engine checks every value and names any bad one.
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const AUTH_FIELDS: Record<string, readonly (readonly [key: string, label: string])[]> = {
  none: [],
  bearer: [['token', 'Bearer token']],
  api_key: [
    ['key', 'API key'],
    ['paramName', 'Header or query parameter name'],
  ],
  oauth2: [
    ['clientId', 'Client id'],
    ['clientSecret', 'Client secret'],
    ['tokenUrl', 'Token URL'],
    ['scope', 'Scope'],
  ],
  basic: [
    ['username', 'User name'],
    ['password', 'Password'],
  ],
};
const PARAMETER_TYPES = ['string', 'number', 'boolean'];

type Change = (row: Row) => void;

/** How the tool authenticates to its target: a kind, then that kind's fields. */
function AuthFields({ auth, onChange }: { auth: Row; onChange: (auth: Row | undefined) => void }) {
  const kind = textOf(auth.type) || 'none';
  const fields = AUTH_FIELDS[kind] ?? [];
  return (
    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
      <TextField
        select
        label="Auth"
        value={kind}
        onChange={(e) => onChange(e.target.value === 'none' ? undefined : { type: e.target.value })}
        sx={{ minWidth: 140 }}
      >
        {Object.keys(AUTH_FIELDS).map((k) => (
          <MenuItem key={k} value={k}>
            {k.replace(/_/g, ' ')}
          </MenuItem>
        ))}
      </TextField>
      {kind === 'api_key' && (
        <TextField
          select
          label="Key sent in"
          value={textOf(auth.location) || 'header'}
          onChange={(e) => onChange({ ...auth, location: e.target.value })}
          sx={{ minWidth: 120 }}
        >
          <MenuItem value="header">header</MenuItem>
          <MenuItem value="query">query</MenuItem>
        </TextField>
      )}
      {fields.map(([key, label]) => (
        <TextField
          key={key}
          label={label}
          value={textOf(auth[key])}
          onChange={(e) => onChange(withField(auth, key, e.target.value || undefined))}
          sx={{ flex: 1, minWidth: 180 }}
        />
      ))}
    </Stack>
  );
}

/** An http tool's request: method, URL (with {parameter} placeholders), auth, timeout. */
function RequestFields({ config, onChange }: { config: Row; onChange: Change }) {
  return (
    <Stack spacing={1}>
      <Stack direction="row" spacing={1}>
        <TextField
          select
          label="Method"
          value={textOf(config.method)}
          onChange={(e) => onChange({ ...config, method: e.target.value })}
          sx={{ width: 120 }}
        >
          {METHODS.map((m) => (
            <MenuItem key={m} value={m}>
              {m}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          label="URL"
          value={textOf(config.url)}
          helperText="{parameterName} placeholders are filled from the call"
          onChange={(e) => onChange({ ...config, url: e.target.value })}
          sx={{ flex: 1 }}
        />
        <TextField
          label="Timeout (ms)"
          type="number"
          value={textOf(config.timeoutMs)}
          placeholder="10000"
          onChange={(e) => onChange(withField(config, 'timeoutMs', numberOf(e.target.value)))}
          sx={{ width: 140 }}
        />
      </Stack>
      <AuthFields
        auth={recordOf(config.auth)}
        onChange={(auth) => onChange(withField(config, 'auth', auth))}
      />
    </Stack>
  );
}

/** One parameter the tool takes: its name, type, whether it is required, what it is. */
function ParameterRow({ parameter, onChange }: { parameter: Row; onChange: Change }) {
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <TextField
        label="Parameter name"
        value={textOf(parameter.name)}
        onChange={(e) => onChange({ ...parameter, name: e.target.value })}
        sx={{ flex: 1 }}
      />
      <TextField
        select
        label="Parameter type"
        value={textOf(parameter.type) || 'string'}
        onChange={(e) => onChange({ ...parameter, type: e.target.value })}
        sx={{ width: 140 }}
      >
        {PARAMETER_TYPES.map((t) => (
          <MenuItem key={t} value={t}>
            {t}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label="What it is"
        value={textOf(parameter.description)}
        onChange={(e) => onChange(withField(parameter, 'description', e.target.value || undefined))}
        sx={{ flex: 2 }}
      />
      <FormControlLabel
        label="Required"
        control={
          <Checkbox
            checked={parameter.required === true}
            onChange={(e) => onChange({ ...parameter, required: e.target.checked })}
          />
        }
      />
    </Stack>
  );
}

/** The answer's fields the agent gets: a name, and the path in the answer it is read from. */
function MappingRow({ entry, onChange }: { entry: Row; onChange: Change }) {
  return (
    <Stack direction="row" spacing={1}>
      <TextField
        label="Result field"
        value={textOf(entry.field)}
        onChange={(e) => onChange({ ...entry, field: e.target.value })}
        sx={{ flex: 1 }}
      />
      <TextField
        label="Path in the answer"
        value={textOf(entry.path)}
        placeholder="order.status"
        onChange={(e) => onChange({ ...entry, path: e.target.value })}
        sx={{ flex: 1 }}
      />
    </Stack>
  );
}

// The mapping is an object: as rows, kept here, it keeps blank and repeated names while they are
// typed (an object would merge them). The form is made anew at each switch from JSON.
const mappingRows = (mapping: unknown): Row[] =>
  Object.entries(recordOf(mapping)).map(([field, path]) => ({ field, path }));
const mappingOf = (rows: Row[]): Row | undefined =>
  rows.length ? Object.fromEntries(rows.map((r) => [textOf(r.field), textOf(r.path)])) : undefined;

/** The response mapping as rows of a result field and its path. */
function MappingRows({
  mapping,
  onChange,
}: {
  mapping: unknown;
  onChange: (m: Row | undefined) => void;
}) {
  const [rows, setRows] = useState(() => mappingRows(mapping));
  return (
    <RowList
      name="mapped field"
      rows={rows}
      onChange={(next) => {
        setRows(next);
        onChange(mappingOf(next));
      }}
      newRow={() => ({ field: '', path: '' })}
      empty="No mapping: the agent gets the whole answer."
      renderRow={(entry, update) => <MappingRow entry={entry} onChange={update} />}
    />
  );
}

/** Why the form cannot show a definition (null when it can). */
export const definitionProblem = (v: unknown): string | null =>
  isRow(v) && rowsOf(v.parameters) !== null
    ? null
    : 'The form shows an object with a list of parameters: fix the JSON, or save it as it is';

/**
 * A tool's definition as a form: an http tool's request (api, action), its parameters and its
 * response mapping. What the form does not cover (rules, steps, a database's query, ...) is kept
 * as it is and edited in the JSON view.
 */
export function ToolRequestForm({
  type,
  definition,
  onChange,
}: {
  type: string;
  definition: Row;
  onChange: Change;
}) {
  const http = type === 'api' || type === 'action';
  return (
    <Stack spacing={2}>
      {http ? (
        <RequestFields
          config={recordOf(definition.config)}
          onChange={(config) => onChange({ ...definition, config })}
        />
      ) : (
        <Typography variant="body2" color="text.secondary">
          A {type} tool&apos;s settings (config, rules, steps) are edited in the JSON view.
        </Typography>
      )}
      <Typography variant="subtitle2">Parameters</Typography>
      <RowList
        name="parameter"
        rows={rowsOf(definition.parameters) ?? []}
        onChange={(parameters) => onChange({ ...definition, parameters })}
        newRow={() => ({ name: '', type: 'string', required: false })}
        empty="No parameter: the tool is called without any."
        renderRow={(parameter, update) => <ParameterRow parameter={parameter} onChange={update} />}
      />
      <Typography variant="subtitle2">Response mapping</Typography>
      <MappingRows
        mapping={definition.responseMapping}
        onChange={(m) => onChange(withField(definition, 'responseMapping', m))}
      />
    </Stack>
  );
}
