import { Checkbox, FormControlLabel, MenuItem, Stack, TextField } from '@mui/material';
import { METRIC_TYPES } from '../generated/catalogue-enums';
import { JsonText } from './JsonToggleField';
import { LinesField } from './LinesField';
import { RowList } from './RowList';
import { numberOf, recordOf, textOf, withField, type Row } from './rowValues';

type MetricType = (typeof METRIC_TYPES)[number];

/** A config field of a metric type, and how it is typed in. */
interface ConfigField {
  key: string;
  label: string;
  kind: 'text' | 'number' | 'boolean' | 'json' | 'lines' | readonly string[];
  help?: string;
}

const MAX_MS = (help: string): ConfigField => ({
  key: 'max',
  label: 'Max (ms)',
  kind: 'number',
  help,
});
const ON: ConfigField = {
  key: 'on',
  label: 'On',
  kind: ['p90', 'max'],
  help: 'p90 of the turns, or the worst',
};
const TEXT: ConfigField[] = [
  { key: 'text', label: 'Text', kind: 'text' },
  { key: 'caseSensitive', label: 'Case-sensitive', kind: 'boolean' },
];

// Keyed by the catalogue's own list of metric types: a new type fails to compile here until its
// fields are described. The engine checks the values and names any bad one.
const CONFIG_FIELDS: Record<MetricType, readonly ConfigField[]> = {
  llm_judge: [
    { key: 'criterion', label: 'Criterion (judged by the model)', kind: 'text' },
    {
      key: 'requirements',
      label: 'Requirements (one per line, optional)',
      kind: 'lines',
      help: 'up to 20 short statements, each judged met or not; the score is the share met',
    },
  ],
  tool_called: [
    { key: 'tool', label: 'Tool', kind: 'text' },
    { key: 'arguments', label: 'With arguments (JSON, optional)', kind: 'json' },
  ],
  tool_not_called: [{ key: 'tool', label: 'Tool', kind: 'text' }],
  contains: TEXT,
  not_contains: TEXT,
  regex: [
    { key: 'pattern', label: 'Pattern', kind: 'text' },
    { key: 'flags', label: 'Flags', kind: 'text', help: 'any of g i m s u y' },
  ],
  max_turns: [{ key: 'max', label: 'Max turns', kind: 'number' }],
  max_latency_ms: [MAX_MS('the slowest reply')],
  ended_by: [{ key: 'who', label: 'Ended by', kind: ['agent', 'caller'] }],
  max_response_latency_ms: [MAX_MS('audio: end of the caller to the agent speaking'), ON],
  max_time_to_first_audio_ms: [MAX_MS("audio: connect to the agent's first sound")],
  max_talk_over_ms: [MAX_MS('audio: the agent talking over the caller, in all')],
  max_barge_in_stop_ms: [MAX_MS('audio: how fast the agent stops when talked over'), ON],
  max_false_yields: [
    {
      key: 'max',
      label: 'Max false yields',
      kind: 'number',
      help: 'audio: backchannels the agent stopped for',
    },
  ],
  reprompts_after_silence: [
    { key: 'withinMs', label: 'Within (ms)', kind: 'number', help: 'audio: default 10000' },
  ],
  max_asr_wer: [
    { key: 'max', label: 'Max word error rate', kind: 'number', help: 'audio: 0.1 = 10%' },
  ],
};

const isMetricType = (t: unknown): t is MetricType =>
  typeof t === 'string' && (METRIC_TYPES as readonly string[]).includes(t);

/** One config field of a metric, typed in by its kind. */
function ConfigFieldInput({
  field,
  config,
  onChange,
}: {
  field: ConfigField;
  config: Row;
  onChange: (config: Row) => void;
}) {
  const value = config[field.key];
  const set = (v: unknown) => onChange(withField(config, field.key, v));
  if (field.kind === 'boolean')
    return (
      <FormControlLabel
        label={field.label}
        control={
          <Checkbox checked={value === true} onChange={(e) => set(e.target.checked || undefined)} />
        }
      />
    );
  if (field.kind === 'json')
    return <JsonText label={field.label} value={value} onChange={set} minRows={1} />;
  if (field.kind === 'lines')
    return <LinesField label={field.label} value={value} helperText={field.help} onChange={set} />;
  const choices = typeof field.kind === 'string' ? null : field.kind;
  return (
    <TextField
      label={field.label}
      select={choices !== null}
      type={field.kind === 'number' ? 'number' : 'text'}
      value={textOf(value)}
      helperText={field.help}
      onChange={(e) =>
        set(field.kind === 'number' ? numberOf(e.target.value) : e.target.value || undefined)
      }
      sx={{ flex: 1 }}
    >
      {choices?.map((c) => (
        <MenuItem key={c} value={c}>
          {c}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** A metric's name, category, weight and whether it is critical. */
function MetricCommonFields({ metric, onChange }: { metric: Row; onChange: (m: Row) => void }) {
  const set = (key: string, v: unknown) => onChange(withField(metric, key, v));
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <TextField
        label="Metric name"
        value={textOf(metric.name)}
        onChange={(e) => set('name', e.target.value)}
        sx={{ flex: 2 }}
      />
      <TextField
        label="Category"
        value={textOf(metric.category)}
        placeholder="general"
        onChange={(e) => set('category', e.target.value || undefined)}
        sx={{ flex: 1 }}
      />
      <TextField
        label="Weight"
        type="number"
        value={textOf(metric.weight)}
        placeholder="1"
        onChange={(e) => set('weight', numberOf(e.target.value))}
        sx={{ width: 100 }}
      />
      <FormControlLabel
        label="Critical"
        control={
          <Checkbox
            checked={metric.critical === true}
            onChange={(e) => set('critical', e.target.checked)}
          />
        }
      />
    </Stack>
  );
}

/** One metric: its common fields, its type, then that type's own fields. */
function MetricRow({ metric, onChange }: { metric: Row; onChange: (m: Row) => void }) {
  const type = isMetricType(metric.type) ? metric.type : null;
  const config = recordOf(metric.config);
  // A new type keeps only the config fields it has too (text from contains to not_contains).
  const changeType = (next: MetricType) => {
    const keys = new Set(CONFIG_FIELDS[next].map((f) => f.key));
    const kept = Object.fromEntries(Object.entries(config).filter(([k]) => keys.has(k)));
    onChange({ ...metric, type: next, config: kept });
  };
  return (
    <Stack spacing={1}>
      <MetricCommonFields metric={metric} onChange={onChange} />
      <TextField
        select
        label="Type"
        value={type ?? ''}
        onChange={(e) => changeType(e.target.value as MetricType)}
      >
        {METRIC_TYPES.map((t) => (
          <MenuItem key={t} value={t}>
            {t.replace(/_/g, ' ')}
          </MenuItem>
        ))}
      </TextField>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
        {type &&
          CONFIG_FIELDS[type].map((field) => (
            <ConfigFieldInput
              key={field.key}
              field={field}
              config={config}
              onChange={(c) => onChange({ ...metric, config: c })}
            />
          ))}
      </Stack>
    </Stack>
  );
}

const NEW_METRIC = (): Row => ({
  name: '',
  type: 'contains',
  config: {},
  weight: 1,
  critical: false,
});

/** A scorecard's metrics as rows: add, remove, reorder, each with its type's fields. */
export function MetricForm({
  metrics,
  onChange,
}: {
  metrics: Row[];
  onChange: (m: Row[]) => void;
}) {
  return (
    <RowList
      name="metric"
      rows={metrics}
      onChange={onChange}
      newRow={NEW_METRIC}
      empty="No metric yet: a scorecard needs at least one."
      renderRow={(metric, update) => <MetricRow metric={metric} onChange={update} />}
    />
  );
}
