import type { OperationOutput } from '../../../src/operations/catalogue';
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
import { useAgents } from '../stores/resources';
import { client, useSession } from '../stores/session';
import {
  ActionButton,
  ConfirmButton,
  ConnectionTestButton,
  ErrorNote,
  JsonField,
  Page,
  StatusChip,
  fieldError,
  fmtDate,
  fmtNum,
  useAction,
  useLoad,
} from '../ui/common';
import { ConditionsTable } from '../ui/CallerSummary';
import { SharedWorkspaces } from '../ui/AgentSharing';

type Agent = OperationOutput<'agents.get'>;
type AgentConfiguration = Agent['configuration'];
type AgentCall = OperationOutput<'agents.calls'>['calls'][number];

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A configuration value in a table cell: objects as JSON, nothing as a dash. */
const shown = (v: unknown): string => {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
};

const PROVIDERS = ['vapi', 'retell', 'elevenlabs', 'bland', 'http'];

/** Whether the agent takes audio simulations, as its provider's transport allows. */
function audioCalls(provider: string): { label: string; color?: 'warning'; title?: string } {
  if (provider === 'bland')
    return {
      label: 'audio calls: experimental',
      color: 'warning',
      title: "Bland's audio socket is undocumented (read from its browser SDK)",
    };
  if (provider === 'retell')
    return { label: 'audio calls: not available', title: "Retell's audio runs on WebRTC" };
  return { label: 'audio calls' };
}

function ConnectDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form, setForm] = useState({
    provider: 'vapi',
    agent_id: '',
    api_key: '',
    base_url: '',
    websocket_url: '',
    format: 'simple' as 'simple' | 'openai',
  });
  const load = useAgents((s) => s.load);
  const connect = useAction(async () => {
    const http = form.provider === 'http';
    await client().invoke('agents.connect', {
      provider: form.provider,
      agent_id: form.agent_id,
      ...(http ? { format: form.format } : {}),
      credentials: {
        ...(form.api_key ? { api_key: form.api_key } : {}),
        ...(form.base_url ? { base_url: form.base_url } : {}),
        ...(http && form.websocket_url ? { websocket_url: form.websocket_url } : {}),
      },
    });
    await load();
    onClose();
  });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  return (
    <Dialog open={open} onClose={onClose} fullWidth aria-labelledby="connect-title">
      <DialogTitle id="connect-title">Connect an agent</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <TextField
            select
            label="Provider"
            value={form.provider}
            onChange={set('provider')}
            error={Boolean(fieldError(connect.error, 'provider'))}
          >
            {PROVIDERS.map((p) => (
              <MenuItem key={p} value={p}>
                {p}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label={form.provider === 'http' ? 'Name' : 'Agent id'}
            value={form.agent_id}
            onChange={set('agent_id')}
            error={Boolean(fieldError(connect.error, 'agent_id'))}
            helperText={fieldError(connect.error, 'agent_id')}
          />
          <TextField
            label="API key"
            type="password"
            value={form.api_key}
            onChange={set('api_key')}
            error={Boolean(fieldError(connect.error, 'credentials.api_key'))}
            helperText={
              fieldError(connect.error, 'credentials.api_key') ??
              'Stored encrypted; never shown again'
            }
          />
          <TextField
            label={form.provider === 'http' ? 'URL of the agent' : 'Base URL (regional hosts only)'}
            value={form.base_url}
            onChange={set('base_url')}
            error={Boolean(fieldError(connect.error, 'credentials.base_url'))}
            helperText={fieldError(connect.error, 'credentials.base_url')}
          />
          {form.provider === 'http' && (
            <TextField select label="Format" value={form.format} onChange={set('format')}>
              <MenuItem value="simple">simple: {'{messages} → {reply}'}</MenuItem>
              <MenuItem value="openai">OpenAI chat completions</MenuItem>
            </TextField>
          )}
          {form.provider === 'http' && (
            <TextField
              label="Audio WebSocket URL (optional)"
              placeholder="wss://my-bot.example/media-stream"
              value={form.websocket_url}
              onChange={set('websocket_url')}
              error={Boolean(fieldError(connect.error, 'credentials.websocket_url'))}
              helperText={
                fieldError(connect.error, 'credentials.websocket_url') ??
                'Where it takes audio calls, speaking Twilio Media Streams (Pipecat, LiveKit...)'
              }
            />
          )}
          <ErrorNote error={connect.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <ActionButton busy={connect.busy} onClick={() => void connect.run()}>
          Connect
        </ActionButton>
      </DialogActions>
    </Dialog>
  );
}

export function Agents() {
  const { items, error, load } = useAgents();
  const navigate = useSession((s) => s.navigate);
  const [tag, setTag] = useState('');
  const [connecting, setConnecting] = useState(false);
  useEffect(() => void load(tag ? { tags: tag } : {}), [load, tag]);
  return (
    <Page
      title="Agents"
      actions={
        <Button variant="contained" onClick={() => setConnecting(true)}>
          Connect agent
        </Button>
      }
    >
      <TextField
        size="small"
        label="Filter by tag"
        value={tag}
        onChange={(e) => setTag(e.target.value)}
        sx={{ mb: 2 }}
      />
      <ErrorNote error={error} />
      <Table size="small" aria-label="Agents">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Provider</TableCell>
            <TableCell>Channel</TableCell>
            <TableCell>Status</TableCell>
            <TableCell>Sync</TableCell>
            <TableCell>Calls</TableCell>
            <TableCell>Avg score</TableCell>
            <TableCell>Tags</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((a) => (
            <TableRow
              key={a.id}
              hover
              tabIndex={0}
              sx={{ cursor: 'pointer' }}
              onClick={() => navigate(`agents/${a.id}`)}
              onKeyDown={(e) => e.key === 'Enter' && navigate(`agents/${a.id}`)}
            >
              <TableCell>{a.name}</TableCell>
              <TableCell>{a.provider}</TableCell>
              <TableCell>{a.channel}</TableCell>
              <TableCell>
                <StatusChip value={a.status} />
              </TableCell>
              <TableCell>
                <StatusChip value={a.sync.status} />
              </TableCell>
              <TableCell>{a.stats.totalCalls}</TableCell>
              <TableCell>{fmtNum(a.stats.avgScore)}</TableCell>
              <TableCell>
                {a.tags.map((t: string) => (
                  <Chip key={t} size="small" label={t} sx={{ mr: 0.5 }} />
                ))}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {items.length === 0 && (
        <Typography sx={{ mt: 2 }}>No agents yet: connect one from its provider.</Typography>
      )}
      <ConnectDialog open={connecting} onClose={() => setConnecting(false)} />
    </Page>
  );
}

/** The overrides as an object: the value in force at each overridden path. */
function overridesOf(agent: Agent): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of agent.overrides) {
    const keys = path.replace(/^configuration\./, '').split('.');
    let value: unknown = agent.configuration;
    for (const k of keys) value = isRecord(value) ? value[k] : undefined;
    let target = out;
    for (const k of keys.slice(0, -1)) {
      const next = target[k];
      target = isRecord(next) ? next : (target[k] = {});
    }
    target[keys.at(-1)!] = value;
  }
  return out;
}

/** Synced value and value in force side by side; the overrides themselves are edited as JSON. */
function Configuration({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const [overrides, setOverrides] = useState<unknown>(() => overridesOf(agent));
  const save = useAction(async () => {
    // The editor holds every override: what it no longer has goes back to the synced value.
    await client().invoke('agents.reset_overrides', { agent_id: agent.id });
    if (overrides && Object.keys(overrides).length)
      await client().invoke('agents.update', { agent_id: agent.id, configuration: overrides });
    onSaved();
  });
  const reset = useAction(async () => {
    await client().invoke('agents.reset_overrides', { agent_id: agent.id });
    onSaved();
  });
  const versions = useLoad(
    () => client().invoke('agents.versions', { agent_id: agent.id }),
    [agent.id],
  );
  const synced: Partial<AgentConfiguration> = versions.data?.versions?.[0]?.configuration ?? {};
  const rows: [string, unknown, unknown][] = [
    ['prompt', synced.prompt, agent.configuration.prompt],
    ['firstMessage', synced.firstMessage, agent.configuration.firstMessage],
    ['model.name', synced.model?.name, agent.configuration.model?.name],
    ['model.temperature', synced.model?.temperature, agent.configuration.model?.temperature],
    ['model.maxTokens', synced.model?.maxTokens, agent.configuration.model?.maxTokens],
    ['voice.voiceId', synced.voice?.voiceId, agent.configuration.voice?.voiceId],
  ];
  return (
    <Box>
      <Table size="small" aria-label="Configuration">
        <TableHead>
          <TableRow>
            <TableCell>Field</TableCell>
            <TableCell>Synced</TableCell>
            <TableCell>In force</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map(([path, a, b]) => (
            <TableRow key={path} selected={agent.overrides.includes(`configuration.${path}`)}>
              <TableCell>
                {path}
                {agent.overrides.includes(`configuration.${path}`) && (
                  <Chip size="small" label="override" color="warning" sx={{ ml: 1 }} />
                )}
              </TableCell>
              <TableCell sx={{ maxWidth: 360, whiteSpace: 'pre-wrap' }}>{shown(a)}</TableCell>
              <TableCell sx={{ maxWidth: 360, whiteSpace: 'pre-wrap' }}>{shown(b)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Typography variant="subtitle2" sx={{ mt: 2 }}>
        Local overrides (never written back to {agent.provider}), such as{' '}
        {'{"model": {"temperature": 0.7}}'}
      </Typography>
      <JsonField
        label="Overrides"
        value={overridesOf(agent)}
        onChange={setOverrides}
        error={fieldError(save.error, 'configuration')}
        sx={{ mt: 1 }}
      />
      <ErrorNote error={save.error ?? reset.error} />
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          Save overrides
        </ActionButton>
        <ConfirmButton
          color="warning"
          disabled={!agent.overrides.length}
          question={`Reset the overrides of ${agent.name}?`}
          consequence={`Your ${agent.overrides.length} local edit(s) go; simulations use the provider's configuration again.`}
          confirmLabel="Reset overrides"
          onConfirm={() => reset.run()}
        >
          Reset overrides
        </ConfirmButton>
      </Stack>
    </Box>
  );
}

export function AgentDetail({ id }: { id: string }) {
  const [tab, setTab] = useState(0);
  const agent = useLoad(() => client().invoke('agents.get', { agent_id: id }), [id]);
  const tools = useLoad(() => client().invoke('agents.tools', { agent_id: id }), [id]);
  const calls = useLoad(() => client().invoke('agents.calls', { agent_id: id, limit: 50 }), [id]);
  const versions = useLoad(() => client().invoke('agents.versions', { agent_id: id }), [id]);
  const analytics = useLoad(
    () => client().invoke('agents.analytics', { agent_id: id, breakdown: 'category', days: 30 }),
    [id],
  );
  const sync = useAction(async () => {
    await client().invoke('agents.sync', { agent_id: id });
    await agent.reload();
  });
  const setChannel = useAction(async (channel: 'provider' | 'http' | 'replica') => {
    await client().invoke('agents.update', { agent_id: id, channel });
    await agent.reload();
  });
  const a = agent.data;
  const [call, setCall] = useState<AgentCall | null>(null);
  return (
    <Page
      title={a ? `Agent: ${a.name}` : 'Agent'}
      actions={
        a &&
        a.provider !== 'http' && (
          <ActionButton busy={sync.busy} onClick={() => void sync.run()}>
            Sync now
          </ActionButton>
        )
      }
    >
      <ErrorNote error={agent.error ?? sync.error ?? setChannel.error} />
      {a && (
        <>
          <Stack direction="row" spacing={1} sx={{ mb: 2, alignItems: 'center' }}>
            <Chip label={a.provider} />
            <StatusChip value={a.status} />
            <StatusChip value={a.sync.status} />
            <Chip size="small" variant="outlined" {...audioCalls(a.provider)} />
            <Typography variant="body2">Last synced {fmtDate(a.sync.lastSyncedAt)}</Typography>
            <TextField
              select
              size="small"
              label="Simulations reach it by"
              value={a.channel}
              onChange={(e) =>
                void setChannel.run(e.target.value as 'provider' | 'http' | 'replica')
              }
              sx={{ width: 260 }}
              error={Boolean(setChannel.error)}
              helperText={fieldError(setChannel.error, 'channel')}
            >
              <MenuItem value="provider">provider: its provider's text chat</MenuItem>
              <MenuItem value="replica">replica: its configuration on our model</MenuItem>
              <MenuItem value="http">http: its own URL</MenuItem>
            </TextField>
            <ConnectionTestButton
              label={`Test the connection to ${a.name}`}
              test={() => client().invoke('agents.testConnection', { agent_id: id })}
            />
          </Stack>
          <SharedWorkspaces key={a.updated_at} agent={a} onSaved={() => void agent.reload()} />
          <Tabs value={tab} onChange={(_e, v: number) => setTab(v)} aria-label="Agent sections">
            <Tab label="Configuration" />
            <Tab label="Tools" />
            <Tab label="Calls" />
            <Tab label="Versions" />
            <Tab label="Analytics" />
          </Tabs>
          <Box sx={{ pt: 2 }}>
            {tab === 0 && (
              <Configuration key={a.updated_at} agent={a} onSaved={() => void agent.reload()} />
            )}
            {tab === 1 && (
              <Table size="small" aria-label="Agent tools">
                <TableHead>
                  <TableRow>
                    <TableCell>Tool</TableCell>
                    <TableCell>Endpoint</TableCell>
                    <TableCell>Success rate</TableCell>
                    <TableCell>Avg response</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {(tools.data?.tools ?? []).map((t) => (
                    <TableRow key={t.name}>
                      <TableCell>{t.name}</TableCell>
                      <TableCell>{t.endpoint ?? '—'}</TableCell>
                      <TableCell>{fmtNum(t.successRate, '%')}</TableCell>
                      <TableCell>{fmtNum(t.avgResponseTime, ' ms')}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
            {tab === 2 && (
              <Stack direction="row" spacing={2}>
                <Table size="small" aria-label="Calls" sx={{ flex: 1 }}>
                  <TableHead>
                    <TableRow>
                      <TableCell>Started</TableCell>
                      <TableCell>Duration</TableCell>
                      <TableCell>End</TableCell>
                      <TableCell>Cost</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {(calls.data?.calls ?? []).map((c) => (
                      <TableRow
                        key={c.id}
                        hover
                        selected={call?.id === c.id}
                        onClick={() => setCall(c)}
                        sx={{ cursor: 'pointer' }}
                      >
                        <TableCell>{fmtDate(c.startedAt)}</TableCell>
                        <TableCell>{fmtNum(c.durationMs && c.durationMs / 1000, ' s')}</TableCell>
                        <TableCell>{c.endReason}</TableCell>
                        <TableCell>{fmtNum(c.cost, ' $')}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
                {call && (
                  <Box sx={{ flex: 1 }} aria-label="Call transcript">
                    {(call.transcript ?? []).map((t, i) => (
                      <Typography key={i} variant="body2">
                        <b>{t.role}:</b> {t.text}
                      </Typography>
                    ))}
                  </Box>
                )}
              </Stack>
            )}
            {tab === 3 && (
              <Table size="small" aria-label="Versions">
                <TableHead>
                  <TableRow>
                    <TableCell>Version</TableCell>
                    <TableCell>Synced</TableCell>
                    <TableCell>Changed</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {(versions.data?.versions ?? []).map((v) => (
                    <TableRow key={v.version}>
                      <TableCell>{v.version}</TableCell>
                      <TableCell>{fmtDate(v.syncedAt)}</TableCell>
                      <TableCell>{v.changedPaths.join(', ') || 'first sync'}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
            {tab === 4 && analytics.data && (
              <Box>
                <Typography>
                  Overall score {fmtNum(analytics.data.overallScore)} · pass rate{' '}
                  {fmtNum(analytics.data.passRate, '%')} · {analytics.data.simulations.total}{' '}
                  simulations: {analytics.data.simulations.passed} passed,{' '}
                  {analytics.data.simulations.errored} errored
                </Typography>
                {analytics.data.audio && (
                  <Typography aria-label="Audio latency">
                    {analytics.data.audio.calls} audio calls · response latency p50{' '}
                    {fmtNum(analytics.data.audio.response_latency_ms.p50, ' ms')} · p90{' '}
                    {fmtNum(analytics.data.audio.response_latency_ms.p90, ' ms')} · max{' '}
                    {fmtNum(analytics.data.audio.response_latency_ms.max, ' ms')} · first audio p50{' '}
                    {fmtNum(analytics.data.audio.time_to_first_audio_ms.p50, ' ms')} ·{' '}
                    {analytics.data.audio.talk_overs} talk-overs
                  </Typography>
                )}
                {analytics.data.audio && (
                  <ConditionsTable rows={analytics.data.audio.by_conditions} />
                )}
                {analytics.data.categoryBreakdown.length > 0 && (
                  <BarChart
                    height={260}
                    xAxis={[
                      {
                        scaleType: 'band',
                        data: analytics.data.categoryBreakdown.map((c) => c.category),
                      },
                    ]}
                    series={[
                      {
                        data: analytics.data.categoryBreakdown.map((c) => c.score),
                        label: 'Score',
                      },
                    ]}
                  />
                )}
                {analytics.data.categoryBreakdown.map((c) => (
                  <Typography key={c.category} variant="body2">
                    {c.category}: {c.score} ({c.trend}, {c.status.replace('_', ' ')})
                  </Typography>
                ))}
                {analytics.data.recommendations.map((r: string) => (
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
