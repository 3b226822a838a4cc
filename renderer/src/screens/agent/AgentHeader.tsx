import type { OperationOutput } from '../../../../src/operations/catalogue';
import { Chip, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { client } from '../../stores/session';
import { ConnectionTestButton, StatusChip, fieldError, fmtDate } from '../../ui/common';
import { AudioChip } from '../../ui/AgentConnection';

type Agent = OperationOutput<'agents.get'>;
type Channel = 'provider' | 'http' | 'replica';

/** The agent at a glance: provider, status, sync, audio, the channel simulations use, a test. */
export function AgentHeader({
  agent: a,
  setChannel,
}: {
  agent: Agent;
  /** The channel action (a `useAction`): its run and its error. */
  setChannel: { run: (channel: Channel) => Promise<unknown>; error: unknown };
}) {
  return (
    <Stack direction="row" spacing={1} sx={{ mb: 2, alignItems: 'center' }}>
      <Chip label={a.provider} />
      <StatusChip value={a.status} />
      <StatusChip value={a.sync.status} />
      <AudioChip agent={a} />
      <Typography variant="body2">Last synced {fmtDate(a.sync.lastSyncedAt)}</Typography>
      <TextField
        select
        size="small"
        label="Simulations reach it by"
        value={a.channel}
        onChange={(e) => void setChannel.run(e.target.value as Channel)}
        sx={{ width: 260 }}
        error={Boolean(setChannel.error)}
        helperText={fieldError(setChannel.error, 'channel')}
      >
        <MenuItem value="provider">provider: its provider's text chat</MenuItem>
        <MenuItem value="replica">replica: its configuration on our model</MenuItem>
        <MenuItem value="http">http: its own URL</MenuItem>
      </TextField>
      <ConnectionTestButton
        label={`Test connection to ${a.name}`}
        test={() => client().invoke('agents.testConnection', { agent_id: a.id })}
      />
    </Stack>
  );
}
