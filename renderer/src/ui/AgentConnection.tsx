import {
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
} from '@mui/material';
import { useState } from 'react';
import type { OutputOf } from '../client';
import { client } from '../stores/session';
import { ActionButton, ConfirmButton, ErrorNote, fieldError, useAction } from './common';

/**
 * What is connected, managed from the agent's page: its audio chip (from the engine's own
 * `audio` answer), "Edit connection" (the connect operation again, which reconnects the same
 * agent) and "Disconnect" (the delete operation without purge: the history stays).
 */

type Agent = OutputOf<'agents.get'>;

/** The connection fields by engine path, with their labels: an error is said at its field. */
export const CONNECTION_FIELDS = {
  provider: 'Provider',
  agent_id: 'Agent id',
  'credentials.api_key': 'API key',
  'credentials.base_url': 'URL',
  'credentials.websocket_url': 'Audio WebSocket URL',
};

/** "audio calls", "text only" or "audio calls: experimental", as the engine says it can call it. */
export function AudioChip({ agent }: { agent: Agent }) {
  if (!agent.audio.available)
    return (
      <Chip
        size="small"
        variant="outlined"
        label="text only"
        title={agent.audio.reason ?? undefined}
      />
    );
  if (agent.provider === 'bland')
    return (
      <Chip
        size="small"
        variant="outlined"
        color="warning"
        label="audio calls: experimental"
        title="Bland's audio socket is undocumented (read from its browser SDK)"
      />
    );
  return <Chip size="small" variant="outlined" label="audio calls" />;
}

interface ConnectionForm {
  api_key: string;
  base_url: string;
  websocket_url: string;
  format: 'simple' | 'openai';
}

/** What agents.connect takes to connect this very agent again with the form's credentials. */
function connectInput(agent: Agent, form: ConnectionForm) {
  const http = agent.provider === 'http';
  return {
    provider: agent.provider,
    // An http agent is found again by its name, a provider's by the provider's id for it.
    agent_id: http ? agent.name : (agent.providerAgentId ?? agent.name),
    ...(http ? { format: form.format } : {}),
    credentials: {
      ...(form.api_key ? { api_key: form.api_key } : {}),
      ...(form.base_url ? { base_url: form.base_url } : {}),
      ...(http && form.websocket_url ? { websocket_url: form.websocket_url } : {}),
    },
  };
}

/** The connection's fields: the provider's key and host, or an http agent's URLs and format. */
function ConnectionFields({
  agent,
  form,
  setForm,
  error,
}: {
  agent: Agent;
  form: ConnectionForm;
  setForm: (form: ConnectionForm) => void;
  error: unknown;
}) {
  const http = agent.provider === 'http';
  const field = (k: 'api_key' | 'base_url' | 'websocket_url', label: string, hint?: string) => {
    const problem = fieldError(error, `credentials.${k}`);
    return (
      <TextField
        label={label}
        type={k === 'api_key' ? 'password' : 'text'}
        value={form[k]}
        onChange={(e) => setForm({ ...form, [k]: e.target.value })}
        error={Boolean(problem)}
        helperText={problem ?? hint}
      />
    );
  };
  return (
    <Stack spacing={2} sx={{ mt: 1 }}>
      {field('base_url', http ? 'URL' : 'Base URL (regional hosts only)')}
      {http &&
        field(
          'websocket_url',
          'Audio WebSocket URL',
          'Where it takes audio calls (Twilio Media Streams); blank: text only',
        )}
      {field('api_key', http ? 'API key (optional)' : 'API key', 'Stored encrypted')}
      {http && (
        <TextField
          select
          label="Format"
          value={form.format}
          onChange={(e) => setForm({ ...form, format: e.target.value as ConnectionForm['format'] })}
        >
          <MenuItem value="simple">simple: {'{messages} → {reply}'}</MenuItem>
          <MenuItem value="openai">OpenAI chat completions</MenuItem>
        </TextField>
      )}
    </Stack>
  );
}

/** "Edit connection": the agent's URLs and credentials, entered again (they are never shown). */
export function EditConnectionDialog({
  agent,
  onClose,
}: {
  agent: Agent;
  onClose: (saved: boolean) => void;
}) {
  const [form, setForm] = useState<ConnectionForm>({
    api_key: '',
    base_url: '',
    websocket_url: '',
    format: 'simple',
  });
  const save = useAction(async () => {
    await client().invoke('agents.connect', connectInput(agent, form));
    onClose(true);
  });
  return (
    <Dialog open onClose={() => onClose(false)} fullWidth aria-labelledby="edit-connection-title">
      <DialogTitle id="edit-connection-title">Edit the connection of {agent.name}</DialogTitle>
      <DialogContent>
        <DialogContentText>
          Credentials are stored encrypted and never shown: enter the whole connection again. It
          replaces the stored one; its calls, overrides and versions stay.
        </DialogContentText>
        <ConnectionFields agent={agent} form={form} setForm={setForm} error={save.error} />
        <ErrorNote error={save.error} fields={CONNECTION_FIELDS} />
      </DialogContent>
      <DialogActions>
        <Button onClick={() => onClose(false)}>Cancel</Button>
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          Save connection
        </ActionButton>
      </DialogActions>
    </Dialog>
  );
}

/** The agent page's buttons: Edit connection, and Disconnect (asks first, saying what goes). */
export function ConnectionActions({
  agent,
  onChanged,
}: {
  agent: Agent;
  onChanged: () => unknown;
}) {
  const [editing, setEditing] = useState(false);
  const disconnect = useAction(async () => {
    await client().invoke('agents.delete', { agent_id: agent.id });
    await onChanged();
  });
  return (
    <>
      <Button variant="outlined" onClick={() => setEditing(true)}>
        Edit connection
      </Button>
      {agent.status !== 'disconnected' && (
        <ConfirmButton
          color="warning"
          question={`Disconnect the agent "${agent.name}"?`}
          consequence="Its credentials are forgotten and it is no longer synced or called: simulations that target it are refused until it is connected again. Its calls, configuration overrides, versions, analytics and past simulations stay, and Edit connection brings it back."
          confirmLabel="Disconnect"
          onConfirm={() => disconnect.run()}
        >
          Disconnect
        </ConfirmButton>
      )}
      <ErrorNote error={disconnect.error} />
      {editing && (
        <EditConnectionDialog
          agent={agent}
          onClose={(saved) => {
            setEditing(false);
            if (saved) void onChanged();
          }}
        />
      )}
    </>
  );
}
