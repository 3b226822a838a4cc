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
} from '@mui/material';
import { useEffect, useState } from 'react';
import { AGENT_PROVIDERS } from '../generated/catalogue-enums';
import { useAgents } from '../stores/resources';
import { client, useSession } from '../stores/session';
import {
  ActionButton,
  ErrorNote,
  Page,
  StatusChip,
  fieldError,
  fmtNum,
  useAction,
  useLoad,
} from '../ui/common';
import { SharedWorkspaces } from '../ui/AgentSharing';
import { RegressionSuite } from '../ui/RegressionSuite';
import { AgentVariants, nestVariants } from '../ui/AgentVariants';
import { CONNECTION_FIELDS, ConnectionActions } from '../ui/AgentConnection';
import { AgentHeader } from './agent/AgentHeader';
import { AnalyticsTab } from './agent/AnalyticsTab';
import { CallsTab } from './agent/CallsTab';
import { ConfigurationTab } from './agent/ConfigurationTab';
import { ToolsTab } from './agent/ToolsTab';
import { VersionsTab } from './agent/VersionsTab';
import { ProductionTab } from './agent/ProductionTab';
import { EmptyState } from '../ui/EmptyState';

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
            helperText={fieldError(connect.error, 'provider')}
          >
            {/* The demo agent is not connected: the overview's "Run the demo" makes it. */}
            {AGENT_PROVIDERS.filter((p) => p !== 'demo').map((p) => (
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
          <ErrorNote error={connect.error} fields={CONNECTION_FIELDS} />
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
          {nestVariants(items).map((a) => (
            <TableRow
              key={a.id}
              hover
              tabIndex={0}
              sx={{ cursor: 'pointer' }}
              onClick={() => navigate(`agents/${a.id}`)}
              onKeyDown={(e) => e.key === 'Enter' && navigate(`agents/${a.id}`)}
            >
              <TableCell sx={a.parentId ? { pl: 4 } : undefined}>
                {a.parentId ? `↳ ${a.name} (variant)` : a.name}
              </TableCell>
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
      {items.length === 0 && !error && (
        <EmptyState
          text={
            tag
              ? 'No agent has this tag.'
              : 'No agents yet. An agent is the voice AI you test: connect it from its provider (Vapi, Retell, ElevenLabs, Bland) or by its URL.'
          }
          actionLabel="Connect your first agent"
          onAction={() => setConnecting(true)}
        />
      )}
      <ConnectDialog open={connecting} onClose={() => setConnecting(false)} />
    </Page>
  );
}

/** The agent's page: its header, who it is shared with, and one tab at a time (each loads its own). */
export function AgentDetail({ id }: { id: string }) {
  const [tab, setTab] = useState(0);
  const agent = useLoad(() => client().invoke('agents.get', { agent_id: id }), [id]);
  const sync = useAction(async () => {
    await client().invoke('agents.sync', { agent_id: id });
    await agent.reload();
  });
  const setChannel = useAction(async (channel: 'provider' | 'http' | 'replica') => {
    await client().invoke('agents.update', { agent_id: id, channel });
    await agent.reload();
  });
  const a = agent.data;
  return (
    <Page
      title={a ? `Agent: ${a.name}` : 'Agent'}
      actions={
        a && (
          <>
            {a.provider !== 'http' && !a.parentId && (
              <ActionButton busy={sync.busy} onClick={() => void sync.run()}>
                Sync now
              </ActionButton>
            )}
            <ConnectionActions agent={a} onChanged={() => agent.reload()} />
          </>
        )
      }
    >
      <ErrorNote error={agent.error ?? sync.error ?? setChannel.error} />
      {a && (
        <>
          <AgentHeader agent={a} setChannel={setChannel} />
          <SharedWorkspaces key={a.updated_at} agent={a} onSaved={() => void agent.reload()} />
          <RegressionSuite
            key={`suite-${a.updated_at}`}
            agent={a}
            onSaved={() => void agent.reload()}
          />
          <AgentVariants agent={a} onApplied={() => void agent.reload()} />
          <Tabs value={tab} onChange={(_e, v: number) => setTab(v)} aria-label="Agent sections">
            <Tab label="Configuration" />
            <Tab label="Tools" />
            <Tab label="Calls" />
            <Tab label="Versions" />
            <Tab label="Analytics" />
            <Tab label="Production" />
          </Tabs>
          <Box sx={{ pt: 2 }}>
            {tab === 0 && (
              <ConfigurationTab key={a.updated_at} agent={a} onSaved={() => void agent.reload()} />
            )}
            {tab === 1 && <ToolsTab agentId={id} />}
            {tab === 2 && <CallsTab agentId={id} />}
            {tab === 3 && <VersionsTab agentId={id} />}
            {tab === 4 && <AnalyticsTab agentId={id} />}
            {tab === 5 && <ProductionTab agent={a} onSaved={() => void agent.reload()} />}
          </Box>
        </>
      )}
    </Page>
  );
}
