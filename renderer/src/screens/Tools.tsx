import type { InputOf, OutputOf } from '../client';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Stack,
  Tab,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Tabs,
  TextField,
  Typography,
} from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { useEffect, useState } from 'react';
import { TOOL_TYPES } from '../generated/catalogue-enums';
import { useEngineRefresh } from '../stores/events';
import { useTools } from '../stores/resources';
import { client, useSession } from '../stores/session';
import {
  ActionButton,
  ErrorNote,
  Page,
  fieldError,
  fmtDate,
  fmtNum,
  useAction,
  useLoad,
} from '../ui/common';
import { ResourcePage } from '../ui/ResourcePage';
import { plural } from '../ui/words';
import { EmptyState } from '../ui/EmptyState';
import { RowActions } from '../ui/RowActions';
import { JsonToggleField } from '../ui/JsonToggleField';
import { ParseReportProvider, useParseProblems } from '../ui/parseProblems';
import { recordOf } from '../ui/rowValues';
import { ToolRequestForm, definitionProblem } from '../ui/ToolRequestForm';
import { ToolAnswerPanes } from '../ui/ToolRawAnswer';
import { ToolTrend } from '../ui/AnalyticsTrends';
import { WindowPicker, type AnalyticsWindow } from '../ui/WindowPicker';

const VOLATILE = new Set(['id', 'version', 'created_at', 'updated_at']);

/** The fields of a past version that differ from the tool in force (what a rollback would change). */
function changedFields(past: object, current: object): string[] {
  const before = past as Record<string, unknown>;
  const now = current as Record<string, unknown>;
  const keys = new Set(
    [...Object.keys(before), ...Object.keys(now)].filter((k) => !VOLATILE.has(k)),
  );
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(now[k]));
}

type Tool = OutputOf<'tools.get'>;
/** A definition as the tester wrote it: the engine validates it on save and names any bad field. */
type ToolDraft = Record<string, unknown>;

/**
 * Name, description and type, then the definition (request, parameters, mapping) as a form or as
 * JSON (rules, steps, ...); Save waits while the JSON does not parse.
 */
function ToolEditor({
  initial,
  onSave,
  busy,
  error,
}: {
  initial: Partial<Tool>;
  onSave: (tool: ToolDraft) => void;
  busy: boolean;
  error: unknown;
}) {
  const [name, setName] = useState(initial.name ?? '');
  const [description, setDescription] = useState(initial.description ?? '');
  const [type, setType] = useState<string>(initial.type ?? 'api');
  const {
    id: _i,
    name: _n,
    description: _d,
    type: _t,
    version: _v,
    created_at: _c,
    updated_at: _u,
    ...restInitial
  } = initial;
  const [rest, setRest] = useState<unknown>(
    Object.keys(restInitial).length
      ? restInitial
      : { config: { url: 'https://', method: 'GET' }, parameters: [] },
  );
  const problems = useParseProblems();
  return (
    <Stack spacing={2} sx={{ mt: 1 }}>
      <TextField
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={Boolean(fieldError(error, 'name'))}
        helperText={fieldError(error, 'name')}
      />
      <TextField
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={Boolean(fieldError(error, 'description'))}
        helperText={fieldError(error, 'description')}
      />
      <TextField select label="Type" value={type} onChange={(e) => setType(e.target.value)}>
        {TOOL_TYPES.map((t) => (
          <MenuItem key={t} value={t}>
            {t}
          </MenuItem>
        ))}
      </TextField>
      <ParseReportProvider value={problems.report}>
        <JsonToggleField
          label="Tool definition"
          jsonLabel="Definition (config, parameters, responseMapping, rules, errorHandling, ...)"
          value={rest}
          onChange={(v) => setRest(v ?? {})}
          formProblem={definitionProblem}
          form={<ToolRequestForm type={type} definition={recordOf(rest)} onChange={setRest} />}
          error={
            fieldError(error, 'config') ??
            fieldError(error, 'parameters') ??
            fieldError(error, 'responseMapping') ??
            fieldError(error, 'rules')
          }
          minRows={10}
        />
      </ParseReportProvider>
      <ErrorNote error={error} />
      <Box>
        <ActionButton
          busy={busy}
          disabled={problems.unparsed}
          onClick={() => onSave({ ...(rest as ToolDraft), name, description, type })}
        >
          Save tool
        </ActionButton>
      </Box>
    </Stack>
  );
}

export function Tools() {
  const { items, error, load } = useTools();
  const navigate = useSession((s) => s.navigate);
  const [creating, setCreating] = useState(false);
  useEffect(() => void load(), [load]);
  const create = useAction(async (tool: ToolDraft) => {
    // A definition the tester wrote as JSON: the engine validates it and names any bad field.
    const created = await client().invoke('tools.create', tool as InputOf<'tools.create'>);
    setCreating(false);
    await load();
    navigate(`tools/${created.id}`);
  });
  // A tool in use (a composite's step, an alert's, an agent's) is refused with who uses it.
  const remove = useAction(async (id: string) => {
    await client().invoke('tools.delete', { tool: id });
    await load();
  });
  return (
    <ResourcePage
      title="Tools"
      newLabel="New tool"
      onNew={() => setCreating(true)}
      error={error ?? remove.error}
    >
      <Table size="small" aria-label="Tools">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Type</TableCell>
            <TableCell>Description</TableCell>
            <TableCell>Version</TableCell>
            <TableCell>Updated</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((t) => (
            <TableRow
              key={t.id}
              hover
              tabIndex={0}
              sx={{ cursor: 'pointer' }}
              onClick={() => navigate(`tools/${t.id}`)}
              onKeyDown={(e) => e.key === 'Enter' && navigate(`tools/${t.id}`)}
            >
              <TableCell>{t.name}</TableCell>
              <TableCell>{t.type}</TableCell>
              <TableCell>{t.description}</TableCell>
              <TableCell>{t.version}</TableCell>
              <TableCell>{fmtDate(t.updated_at)}</TableCell>
              <RowActions
                remove={{
                  kind: 'tool',
                  name: t.name,
                  consequence: 'Its versions go with it.',
                  onConfirm: () => remove.run(t.id),
                  check: () => client().invoke('tools.delete', { tool: t.id, dryRun: true }),
                }}
              />
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {items.length === 0 && !error && (
        <EmptyState
          text="No tools yet. A tool is an API your agent calls during a conversation (an order lookup, a booking)."
          actionLabel="Create your first tool"
          onAction={() => setCreating(true)}
        />
      )}
      <Dialog open={creating} onClose={() => setCreating(false)} fullWidth maxWidth="md">
        <DialogTitle>New tool</DialogTitle>
        <DialogContent>
          <ToolEditor
            initial={{}}
            onSave={(t) => void create.run(t)}
            busy={create.busy}
            error={create.error}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setCreating(false)}>Cancel</Button>
        </DialogActions>
      </Dialog>
    </ResourcePage>
  );
}

/** A form generated from the tool's parameter definitions; dry run shows the request without sending it. */
function TestConsole({ tool }: { tool: Tool }) {
  const params = tool.parameters;
  const [values, setValues] = useState<Record<string, string>>({});
  const [dryRun, setDryRun] = useState(false);
  const [answer, setAnswer] = useState<OutputOf<'tools.test'> | null>(null);
  const test = useAction(async () => {
    const parameters: Record<string, unknown> = {};
    for (const p of params) {
      const v = values[p.name];
      if (v === undefined || v === '') continue;
      parameters[p.name] =
        p.type === 'number' ? Number(v) : p.type === 'boolean' ? v === 'true' : v;
    }
    setAnswer(await client().invoke('tools.test', { tool: tool.id, parameters, dryRun }));
  });
  return (
    <Stack
      spacing={2}
      component="form"
      aria-label="Test console"
      onSubmit={(e) => {
        e.preventDefault();
        void test.run();
      }}
    >
      {params.length === 0 && (
        <Typography variant="body2">This tool takes no parameters.</Typography>
      )}
      {params.map((p) => (
        <TextField
          key={p.name}
          label={`${p.name}${p.required ? ' *' : ''}`}
          helperText={
            fieldError(test.error, `parameters.${p.name}`) ??
            `${p.type}${p.description ? ` · ${p.description}` : ''}`
          }
          error={Boolean(fieldError(test.error, `parameters.${p.name}`))}
          select={Boolean(p.enum)}
          value={values[p.name] ?? ''}
          onChange={(e) => setValues({ ...values, [p.name]: e.target.value })}
        >
          {p.enum?.map((v) => (
            <MenuItem key={v} value={String(v)}>
              {v}
            </MenuItem>
          ))}
        </TextField>
      ))}
      <FormControlLabel
        control={<Checkbox checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} />}
        label="Dry run (show the request, send nothing)"
      />
      <Box>
        <ActionButton busy={test.busy} type="submit">
          Run test
        </ActionButton>
      </Box>
      <ErrorNote error={test.error} />
      {answer && (
        <Box aria-label="Test result">
          <Typography>
            {answer.success ? 'Success' : 'Failed'} · {answer.responseTime} ms · status{' '}
            {answer.statusCode ?? '—'} · attempts {answer.attempts}
          </Typography>
          {answer.dryRun && (
            <Typography variant="body2">Dry run: nothing was sent; the request below.</Typography>
          )}
          {answer.approvalRequired && (
            <Alert severity="info" sx={{ my: 1 }}>
              <AlertTitle>Approval required: not called</AlertTitle>
              {answer.message}
            </Alert>
          )}
          {answer.error && (
            <Typography color="error">
              {answer.error.type}: {answer.error.message}
              {answer.error.step && ` (step ${answer.error.step})`}
            </Typography>
          )}
          {answer.fallback && (
            <Alert severity="warning" sx={{ my: 1 }}>
              <AlertTitle>Fallback: {answer.fallback.action}</AlertTitle>
              {answer.fallback.message ?? 'The agent is told the tool failed, without a message.'}
            </Alert>
          )}
          {answer.warnings?.map((w: string) => (
            <Typography key={w} color="warning.main" variant="body2">
              {w}
            </Typography>
          ))}
          <ToolAnswerPanes answer={answer} />
        </Box>
      )}
    </Stack>
  );
}

export function ToolDetail({ id }: { id: string }) {
  const [tab, setTab] = useState(0);
  const tool = useLoad(() => client().invoke('tools.get', { tool: id }), [id]);
  const versions = useLoad(
    () => client().invoke('tools.versions', { tool: id }),
    [id, tool.data?.version],
  );
  const [timeWindow, setTimeWindow] = useState<AnalyticsWindow>('7d');
  const analytics = useLoad(
    () => client().invoke('tools.analytics', { tool: id, window: timeWindow }),
    [id, timeWindow],
  );
  // Calls from tests, simulations and call history: the figures follow them.
  useEngineRefresh(
    (e) => e.type === 'tools.called' && e.data.toolIds.includes(id),
    () => void analytics.reload(),
    1000,
  );
  const save = useAction(async (t: ToolDraft) => {
    await client().invoke('tools.update', { ...(t as InputOf<'tools.create'>), tool: id });
    await tool.reload();
  });
  const rollback = useAction(async (version: number) => {
    await client().invoke('tools.rollback', { tool: id, version });
    await tool.reload();
  });
  const t = tool.data;
  const a = analytics.data;
  return (
    <Page title={t ? `Tool: ${t.name}` : 'Tool'}>
      <ErrorNote error={tool.error ?? rollback.error} />
      {t && (
        <>
          <Tabs value={tab} onChange={(_e, v: number) => setTab(v)} aria-label="Tool sections">
            <Tab label="Test" />
            <Tab label="Edit" />
            <Tab label="Versions" />
            <Tab label="Analytics" />
          </Tabs>
          <Box sx={{ pt: 2 }}>
            {tab === 0 && <TestConsole tool={t} />}
            {tab === 1 && (
              <ToolEditor
                key={t.version}
                initial={t}
                onSave={(x) => void save.run(x)}
                busy={save.busy}
                error={save.error}
              />
            )}
            {tab === 2 && (
              <Table size="small" aria-label="Tool versions">
                <TableHead>
                  <TableRow>
                    <TableCell>Version</TableCell>
                    <TableCell>When</TableCell>
                    <TableCell>Change</TableCell>
                    <TableCell>Differs from current in</TableCell>
                    <TableCell />
                  </TableRow>
                </TableHead>
                <TableBody>
                  {(versions.data?.versions ?? []).map((v) => (
                    <TableRow key={v.version}>
                      <TableCell>{v.version}</TableCell>
                      <TableCell>{fmtDate(v.created_at)}</TableCell>
                      <TableCell>{v.change}</TableCell>
                      <TableCell>
                        {v.version === t.version
                          ? 'current'
                          : changedFields(v.tool, t).join(', ') || 'nothing'}
                      </TableCell>
                      <TableCell>
                        {v.version !== t.version && (
                          <Button size="small" onClick={() => void rollback.run(v.version)}>
                            Roll back to {v.version}
                          </Button>
                        )}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
            {tab === 3 && a && (
              <Box>
                <WindowPicker value={timeWindow} onChange={setTimeWindow} />
                <Typography>
                  {plural(a.usage.totalCalls, 'call')} · success{' '}
                  {fmtNum(a.performance.successRate, '%')} · avg{' '}
                  {fmtNum(a.performance.avgResponseTime, ' ms')} · p95{' '}
                  {fmtNum(a.performance.p95ResponseTime, ' ms')}
                </Typography>
                <BarChart
                  height={240}
                  xAxis={[{ scaleType: 'band', data: ['success', 'errors', 'timeouts'] }]}
                  series={[
                    {
                      data: [
                        a.performance.successRate,
                        a.performance.errorRate,
                        a.performance.timeoutRate,
                      ],
                      label: '% of calls',
                    },
                  ]}
                />
                <ToolTrend trend={a.trend} />
                {a.recommendations.map((r: string) => (
                  <Typography key={r} variant="body2">
                    • {r}
                  </Typography>
                ))}
              </Box>
            )}
          </Box>
        </>
      )}
    </Page>
  );
}
