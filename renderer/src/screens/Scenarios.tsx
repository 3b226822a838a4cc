import type { InputOf, OutputOf } from '../client';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  LinearProgress,
  MenuItem,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { EXECUTION_CHANNELS, EXECUTION_MODES } from '../generated/catalogue-enums';
import { useAgents, usePersonas, useScenarios, useScorecards } from '../stores/resources';
import { client, useSession, wsInput } from '../stores/session';
import { changesExecution, useEngineRefresh } from '../stores/events';
import { ActionButton, ErrorNote, StatusChip, fieldError, fmtNum, useAction } from '../ui/common';
import { EditorDialog } from '../ui/EditorDialog';
import type { FieldLabels } from '../ui/fieldErrors';
import { JsonToggleField } from '../ui/JsonToggleField';
import { ScriptForm, VariablesForm } from '../ui/ScriptForm';
import { rowsOf, rowsProblem } from '../ui/rowValues';
import { ResourcePage, useEditor } from '../ui/ResourcePage';
import { EmptyState } from '../ui/EmptyState';
import { RowActions } from '../ui/RowActions';
import { ExecuteGuidance } from '../ui/ExecuteGuidance';
import { executionEnded } from '../ui/executionStatus';
import { costWords, MaxCostField } from '../ui/CostFields';
import {
  ExecutionLineFields,
  LineFields,
  lineDraftOf,
  lineOf,
  type LineDraft,
  type LineProfile,
} from '../ui/LineFields';

type Scenario = OutputOf<'scenarios.list'>['scenarios'][number];
type ScenarioInput = InputOf<'scenarios.create'>;
type Execution = OutputOf<'executions.get'>['execution'];

/**
 * The editor's form. Variables and script are edited as rows or as JSON: kept as the tester wrote
 * them, and the engine validates them on save and names any bad field.
 */
interface ScenarioForm {
  name: string;
  prompt: string;
  personas: string[];
  targetAgents: string[];
  scorecard: string;
  expectedOutcome: string;
  promptVariables: unknown;
  script: unknown;
  audio: boolean;
  line: LineDraft;
}

const formOf = (s: Scenario | null): ScenarioForm => ({
  name: s?.name ?? '',
  prompt: s?.prompt ?? '',
  personas: s?.personas ?? [],
  targetAgents: s?.targetAgents ?? [],
  scorecard: s?.scorecard ?? '',
  expectedOutcome: s?.expectedOutcome ?? '',
  promptVariables: s?.promptVariables ?? [],
  script: s?.script ?? null,
  audio: s?.audio?.enabled ?? false,
  line: lineDraftOf(s?.audio?.line),
});

/** The script's act fields (audio mode), with a line that uses one. */
const SCRIPT_HELP =
  'Audio mode, a line may also act: "interrupt": {"afterMs"} (barge in), "backchannel": {"afterMs"}, ' +
  '"silence": {"ms"} (before it), "dtmf": "123#", "hangup": true; "say" is optional on a line that only acts. ' +
  'E.g. {"say": "mm-hmm", "backchannel": {"afterMs": 800}}, {"say": "My PIN is", "dtmf": "4821#"}';

/** A multiple select answers a list (or, typed in by autofill, one comma-separated string). */
const listOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : String(v).split(',').filter(Boolean);

/** Who plays, who is called and how it is scored: chosen from the workspace's own lists. */
function ScenarioLinkFields({
  form,
  setForm,
  err,
}: {
  form: ScenarioForm;
  setForm: (form: ScenarioForm) => void;
  err: (k: string) => { error: boolean; helperText: string | undefined };
}) {
  const personas = usePersonas();
  const agents = useAgents();
  const scorecards = useScorecards();
  useEffect(() => {
    void personas.load({ limit: 100 });
    void agents.load();
    void scorecards.load({ limit: 100 });
  }, []);
  return (
    <>
      <TextField
        select
        label="Personas"
        slotProps={{ select: { multiple: true } }}
        value={form.personas}
        onChange={(e) => setForm({ ...form, personas: listOf(e.target.value) })}
        {...err('personas')}
      >
        {personas.items.map((p) => (
          <MenuItem key={p.id} value={p.id}>
            {p.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        label="Target agents"
        slotProps={{ select: { multiple: true } }}
        value={form.targetAgents}
        onChange={(e) => setForm({ ...form, targetAgents: listOf(e.target.value) })}
        {...err('targetAgents')}
      >
        {agents.items.map((a) => (
          <MenuItem key={a.id} value={a.id}>
            {a.name} ({a.provider})
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        label="Scorecard"
        value={form.scorecard}
        onChange={(e) => setForm({ ...form, scorecard: e.target.value })}
        {...err('scorecard')}
      >
        <MenuItem value="">none</MenuItem>
        {scorecards.items.map((s) => (
          <MenuItem key={s.id} value={s.id}>
            {s.name}
          </MenuItem>
        ))}
      </TextField>
    </>
  );
}

/** The scenario as scenarios.create takes it, from the editor's form. */
const bodyOf = (form: ScenarioForm) => ({
  name: form.name,
  prompt: form.prompt,
  personas: form.personas,
  targetAgents: form.targetAgents,
  scorecard: form.scorecard || null,
  promptVariables: (form.promptVariables ?? []) as ScenarioInput['promptVariables'],
  script: (Array.isArray(form.script) && form.script.length
    ? form.script
    : null) as ScenarioInput['script'],
  expectedOutcome: form.expectedOutcome || null,
  // A text scenario keeps its line for executions that ask for audio.
  audio:
    form.audio || form.line.kind !== 'studio'
      ? { enabled: form.audio, line: lineOf(form.line) }
      : null,
});

/** The scenario editor's fields by engine path: an error on one is said under it, not twice. */
const SCENARIO_FIELDS = {
  name: 'Name',
  prompt: 'Situation',
  personas: 'Personas',
  targetAgents: 'Target agents',
  scorecard: 'Scorecard',
  'audio.line': 'Line',
  expectedOutcome: 'Expected outcome',
  promptVariables: 'Prompt variables',
  script: 'Caller script',
};

function ScenarioEditor({
  scenario,
  onClose,
}: {
  scenario: Scenario | null;
  onClose: (saved: boolean) => void;
}) {
  const [form, setForm] = useState<ScenarioForm>(() => formOf(scenario));
  const save = useAction(async () => {
    const body = bodyOf(form);
    if (scenario)
      await client().invoke('scenarios.update', wsInput({ scenario_id: scenario.id, ...body }));
    else await client().invoke('scenarios.create', wsInput(body));
    onClose(true);
  });
  const err = (k: string) => ({
    error: Boolean(fieldError(save.error, k)),
    helperText: fieldError(save.error, k),
  });
  return (
    <EditorDialog
      title={scenario ? 'Edit scenario' : 'New scenario'}
      saveLabel="Save scenario"
      save={save}
      onClose={() => onClose(false)}
      fields={SCENARIO_FIELDS}
      maxWidth="md"
    >
      <TextField
        label="Name"
        value={form.name}
        onChange={(e) => setForm({ ...form, name: e.target.value })}
        {...err('name')}
      />
      <TextField
        label="Situation (use {{variables}})"
        multiline
        minRows={3}
        value={form.prompt}
        onChange={(e) => setForm({ ...form, prompt: e.target.value })}
        {...err('prompt')}
      />
      <ScenarioLinkFields form={form} setForm={setForm} err={err} />
      <FormControlLabel
        control={
          <Switch
            checked={form.audio}
            onChange={(e) => setForm({ ...form, audio: e.target.checked })}
          />
        }
        label="Audio calls: voices, latency from the audio, a recording (executions may say text)"
      />
      <LineFields
        line={form.line}
        onChange={(line) => setForm({ ...form, line })}
        error={(path) => fieldError(save.error, path)}
      />
      <TextField
        label="Expected outcome (judged)"
        value={form.expectedOutcome}
        onChange={(e) => setForm({ ...form, expectedOutcome: e.target.value })}
        {...err('expectedOutcome')}
      />
      <JsonToggleField
        label="Prompt variables"
        jsonLabel='Variables: [{"name", "type", "defaultValue"}]'
        value={form.promptVariables}
        onChange={(v) => setForm({ ...form, promptVariables: v ?? [] })}
        formProblem={rowsProblem}
        form={
          <VariablesForm
            rows={rowsOf(form.promptVariables) ?? []}
            onChange={(v) => setForm({ ...form, promptVariables: v })}
          />
        }
        error={fieldError(save.error, 'promptVariables')}
        minRows={3}
      />
      <JsonToggleField
        label="Caller script"
        jsonLabel='Script (optional): [{"say", "expect": {"contains"}}]'
        value={form.script}
        onChange={(v) => setForm({ ...form, script: v })}
        formProblem={rowsProblem}
        form={
          <ScriptForm
            rows={rowsOf(form.script) ?? []}
            onChange={(v) => setForm({ ...form, script: v.length ? v : null })}
          />
        }
        error={fieldError(save.error, 'script')}
        helperText={SCRIPT_HELP}
      />
    </EditorDialog>
  );
}

/** What execute answered, completed with counts, until executions.get answers the whole record. */
type Progress = Pick<Execution, 'id' | 'status' | 'simulations_created' | 'counts'> &
  Partial<Pick<Execution, 'pass_rate' | 'avg_score' | 'cost_usd' | 'unpriced_models'>>;
type ExecuteInput = InputOf<'scenarios.execute'>;
type Channel = NonNullable<ExecuteInput['channel']>;
type RunMode = NonNullable<ExecuteInput['mode']>;
// 'scenario': the scenario's own audio.enabled decides.
type Mode = 'scenario' | RunMode;

// The catalogue's own lists, generated from it (npm run gen:operations).
const CHANNELS: readonly Channel[] = EXECUTION_CHANNELS;
const MODES: readonly RunMode[] = EXECUTION_MODES;

/** The execution's choices, as typed: blank ones are left to the scenario and the agents. */
interface ExecuteForm {
  values: Record<string, string>;
  runs: string;
  channel: Channel | '';
  mode: Mode;
  line: LineProfile | 'scenario';
  seed: string;
  /** The spend cap in dollars; blank: none. */
  maxCost: string;
}

// The line and the seed are audio's: the engine refuses them on a text execution.
const isAudioRun = (form: ExecuteForm, scenario: Scenario) =>
  form.mode === 'audio' || (form.mode === 'scenario' && scenario.audio?.enabled === true);

/** scenarios.execute's input, from the form. */
const executeInput = (scenario: Scenario, form: ExecuteForm) => {
  const audioRun = isAudioRun(form, scenario);
  return {
    scenario_id: scenario.id,
    variables: Object.fromEntries(Object.entries(form.values).filter(([, v]) => v !== '')),
    runs: Number(form.runs),
    ...(form.channel ? { channel: form.channel } : {}),
    ...(form.mode !== 'scenario' ? { mode: form.mode } : {}),
    ...(audioRun && form.line !== 'scenario' ? { line: form.line } : {}),
    ...(audioRun && form.seed.trim() ? { seed: Number(form.seed) } : {}),
    ...(form.maxCost.trim() ? { maxCostUsd: Number(form.maxCost) } : {}),
  };
};

/** Starts the execution, then follows it: on the engine's events, and each second until it ends. */
function useExecution(scenario: Scenario, form: ExecuteForm) {
  const [execution, setExecution] = useState<Progress | null>(null);
  const start = useAction(async () => {
    const { execution: e } = await client().invoke(
      'scenarios.execute',
      wsInput(executeInput(scenario, form)),
    );
    setExecution({
      ...e,
      counts: {
        ...{ queued: e.simulations_created, running: 0, completed: 0, failed: 0, cancelled: 0 },
        skipped: 0,
      },
    });
  });
  const refresh = async () => {
    if (execution)
      setExecution(
        (await client().invoke('executions.get', wsInput({ execution_id: execution.id })))
          .execution,
      );
  };
  useEngineRefresh(
    (e) => changesExecution(e, execution?.id),
    () => void refresh(),
  );
  useEffect(() => {
    if (!execution || executionEnded(execution.status)) return;
    const t = setInterval(() => void refresh(), 1_000);
    return () => clearInterval(t);
  }, [execution?.id, execution?.status]);
  return { execution, start };
}

/** The variables, runs, channel, mode and line of one execution. */
function ExecuteFields({
  scenario,
  form,
  setForm,
  error,
}: {
  scenario: Scenario;
  form: ExecuteForm;
  setForm: (form: ExecuteForm) => void;
  error: unknown;
}) {
  const set = (k: 'runs' | 'channel' | 'mode') => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  return (
    <Stack spacing={2} sx={{ mt: 1 }}>
      {scenario.promptVariables.map((v) => (
        <TextField
          key={v.name}
          label={v.name}
          placeholder={v.defaultValue}
          helperText={
            fieldError(error, `variables.${v.name}`) ?? `default: ${v.defaultValue || '(empty)'}`
          }
          error={Boolean(fieldError(error, `variables.${v.name}`))}
          value={form.values[v.name] ?? ''}
          onChange={(e) =>
            setForm({ ...form, values: { ...form.values, [v.name]: e.target.value } })
          }
        />
      ))}
      <TextField
        label="Runs per persona and agent"
        type="number"
        value={form.runs}
        onChange={set('runs')}
        error={Boolean(fieldError(error, 'runs'))}
        helperText={fieldError(error, 'runs') ?? '1 to 20'}
      />
      <TextField
        select
        label="Channel"
        value={form.channel}
        slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        onChange={set('channel')}
        error={Boolean(fieldError(error, 'channel'))}
        helperText={fieldError(error, 'channel') ?? 'How the agents are reached for this execution'}
      >
        <MenuItem value="">each agent's own</MenuItem>
        {CHANNELS.map((c) => (
          <MenuItem key={c} value={c}>
            {c}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        label="Mode"
        value={form.mode}
        onChange={set('mode')}
        error={Boolean(fieldError(error, 'mode'))}
        helperText={
          fieldError(error, 'mode') ??
          'Audio: real calls with voices, latency from the audio, a recording'
        }
      >
        <MenuItem value="scenario">
          the scenario's own ({scenario.audio?.enabled ? 'audio' : 'text'})
        </MenuItem>
        {MODES.map((m) => (
          <MenuItem key={m} value={m}>
            {m}
          </MenuItem>
        ))}
      </TextField>
      <ExecutionLineFields
        line={form.line}
        onLine={(line) => setForm({ ...form, line })}
        seed={form.seed}
        onSeed={(seed) => setForm({ ...form, seed })}
        audioRun={isAudioRun(form, scenario)}
        scenarioLine={scenario.audio?.line}
        error={(path) => fieldError(error, path)}
      />
      <MaxCostField
        value={form.maxCost}
        onChange={(maxCost) => setForm({ ...form, maxCost })}
        error={fieldError(error, 'maxCostUsd')}
      />
      <ErrorNote error={error} fields={executeLabels(scenario)} />
    </Stack>
  );
}

/** The Execute form's fields by the paths the engine names: a problem is said under its field only. */
function executeLabels(scenario: Scenario): FieldLabels {
  const labels: FieldLabels = {
    runs: 'Runs per persona and agent',
    channel: 'Channel',
    mode: 'Mode',
    line: 'Line',
    seed: 'Seed',
    maxCostUsd: 'Max cost (USD)',
  };
  for (const v of scenario.promptVariables) labels[`variables.${v.name}`] = v.name;
  return labels;
}

/** How far the execution is: a progress bar over its simulations, then its pass rate. */
function ExecutionProgress({ scenario, execution }: { scenario: Scenario; execution: Progress }) {
  const c = execution.counts;
  const ended = c.completed + c.failed + c.cancelled + c.skipped;
  const total = execution.simulations_created ?? 0;
  return (
    <Box aria-label="Execution progress">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography>Execution of {scenario.name}</Typography>
        <StatusChip value={execution.status} />
      </Stack>
      <LinearProgress
        variant="determinate"
        value={total ? (100 * ended) / total : 0}
        sx={{ my: 2, height: 10 }}
        aria-label="Simulations ended"
        aria-valuetext={`${ended} of ${total}`}
      />
      <Typography variant="body2" data-testid="execution-progress">
        {ended} of {total} ended · {c.running} running · {c.completed} completed · {c.failed} failed
        {c.skipped ? ` · ${c.skipped} skipped (cost cap)` : ''}
      </Typography>
      {ended === total && (
        <Typography sx={{ mt: 1 }}>
          Pass rate {fmtNum(execution.pass_rate, '%')} · average score {fmtNum(execution.avg_score)}
          {execution.cost_usd !== undefined && execution.unpriced_models
            ? ` · ${costWords({ cost_usd: execution.cost_usd, unpriced_models: execution.unpriced_models })}`
            : ''}
        </Typography>
      )}
    </Box>
  );
}

/** Asks for the variables, starts the execution, then follows it to the end with a progress bar. */
function ExecuteDialog({
  scenario,
  onClose,
  onEditScenario,
}: {
  scenario: Scenario;
  onClose: () => void;
  onEditScenario: () => void;
}) {
  const [form, setForm] = useState<ExecuteForm>({
    values: {},
    runs: '1',
    channel: '',
    mode: 'scenario',
    line: 'scenario',
    seed: '',
    maxCost: '',
  });
  const { execution, start } = useExecution(scenario, form);
  const navigate = useSession((s) => s.navigate);
  return (
    <Dialog open onClose={onClose} fullWidth aria-labelledby="execute-title">
      <DialogTitle id="execute-title">Execute “{scenario.name}”</DialogTitle>
      <DialogContent>
        {!execution && <ExecuteGuidance scenario={scenario} onEditScenario={onEditScenario} />}
        {!execution && (
          <ExecuteFields scenario={scenario} form={form} setForm={setForm} error={start.error} />
        )}
        {execution && <ExecutionProgress scenario={scenario} execution={execution} />}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        {!execution && (
          <ActionButton busy={start.busy} onClick={() => void start.run()}>
            Start
          </ActionButton>
        )}
        {execution && (
          <Button variant="contained" onClick={() => navigate(`executions/${execution.id}`)}>
            Open results
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}

export function Scenarios() {
  const { items, error, load } = useScenarios();
  const reload = () => load({ limit: 100 });
  const editor = useEditor<Scenario>(reload);
  const [executing, setExecuting] = useState<Scenario | null>(null);
  useEffect(() => void load({ limit: 100 }), [load]);
  // Each finished simulation changes its scenario's counts and pass rate: the list follows, live.
  useEngineRefresh(
    (e) => e.type === 'simulation.finished',
    () => void load({ limit: 100 }),
    1_000,
  );
  const remove = useAction(async (id: string) => {
    await client().invoke('scenarios.delete', wsInput({ scenario_id: id }));
    await reload();
  });
  return (
    <ResourcePage
      title="Scenarios"
      newLabel="New scenario"
      onNew={() => editor.open(null)}
      error={error ?? remove.error}
    >
      <Table size="small" aria-label="Scenarios">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Personas</TableCell>
            <TableCell>Agents</TableCell>
            <TableCell>Simulations</TableCell>
            <TableCell>Avg score</TableCell>
            <TableCell>Success</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((s) => (
            <TableRow key={s.id} hover>
              <TableCell>{s.name}</TableCell>
              <TableCell>{s.personas.length}</TableCell>
              <TableCell>{s.targetAgents.length}</TableCell>
              <TableCell>{s.stats?.total_simulations ?? 0}</TableCell>
              <TableCell>{fmtNum(s.stats?.avg_score)}</TableCell>
              <TableCell>{fmtNum(s.stats?.success_rate, '%')}</TableCell>
              <RowActions
                onEdit={() => editor.open(s)}
                remove={{
                  kind: 'scenario',
                  name: s.name,
                  consequence:
                    'Its executions and their simulations, transcripts and scores are deleted with it.',
                  onConfirm: () => remove.run(s.id),
                  check: () =>
                    client().invoke(
                      'scenarios.delete',
                      wsInput({ scenario_id: s.id, dryRun: true }),
                    ),
                }}
              >
                <Button size="small" variant="contained" onClick={() => setExecuting(s)}>
                  Execute
                </Button>
              </RowActions>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {items.length === 0 && !error && (
        <EmptyState
          text="No scenarios yet. A scenario is a situation your agent must handle: who calls, about what, and how it is scored."
          actionLabel="Create your first scenario"
          onAction={() => editor.open(null)}
        />
      )}
      {editor.editing !== undefined && (
        <ScenarioEditor scenario={editor.editing} onClose={editor.close} />
      )}
      {executing && (
        <ExecuteDialog
          scenario={executing}
          onClose={() => {
            setExecuting(null);
            void reload();
          }}
          onEditScenario={() => {
            setExecuting(null);
            editor.open(executing);
          }}
        />
      )}
    </ResourcePage>
  );
}
