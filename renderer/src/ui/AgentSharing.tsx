import type { OperationOutput } from '../../../src/operations/catalogue';
import { Box, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { client } from '../stores/session';
import { ActionButton, ErrorNote, fieldError, useAction, useLoad } from './common';

type Agent = OperationOutput<'agents.get'>;

/** A multiple select answers a list (or, typed in by autofill, one comma-separated string). */
const listOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : String(v).split(',').filter(Boolean);

/**
 * Which workspaces' access tokens may run the agent. Its simulations reach it with the engine's
 * stored credentials, so a token runs only agents shared with its own workspace; API keys run all.
 * Mount it with `key={agent.updated_at}`: a save moves that, and the choice starts afresh.
 */
export function SharedWorkspaces({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const workspaces = useLoad(() => client().invoke('workspaces.list'), []);
  const [chosen, setChosen] = useState<string[]>(agent.workspaces);
  const save = useAction(async () => {
    await client().invoke('agents.setWorkspaces', { agent_id: agent.id, workspaceIds: chosen });
    onSaved();
  });
  const list = workspaces.data?.workspaces ?? [];
  const nameOf = (id: string) => list.find((w) => w.id === id)?.name ?? id;
  return (
    <Box component="section" aria-labelledby="agent-sharing-title" sx={{ mb: 2 }}>
      <Typography id="agent-sharing-title" variant="subtitle2">
        Shared with workspaces
      </Typography>
      <Typography variant="body2" color="text.secondary">
        Their workspace access tokens may run {agent.name} in simulations; API keys run every agent.
      </Typography>
      <Stack direction="row" spacing={1} sx={{ mt: 1, alignItems: 'flex-start' }}>
        <TextField
          select
          size="small"
          label="Workspaces"
          value={chosen}
          onChange={(e) => setChosen(listOf(e.target.value))}
          slotProps={{
            select: {
              multiple: true,
              renderValue: (v) => listOf(v).map(nameOf).join(', '),
            },
          }}
          error={Boolean(fieldError(save.error, 'workspaceIds'))}
          helperText={
            fieldError(save.error, 'workspaceIds') ??
            (chosen.length ? undefined : 'Not shared: no workspace token can run it')
          }
          sx={{ minWidth: 320 }}
        >
          {list.map((w) => (
            <MenuItem key={w.id} value={w.id}>
              {w.name}
            </MenuItem>
          ))}
        </TextField>
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          Save sharing
        </ActionButton>
      </Stack>
      <ErrorNote error={save.error ?? workspaces.error} />
    </Box>
  );
}
