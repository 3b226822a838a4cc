import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  MenuItem,
  Select,
  TextField,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { client, useSession } from '../stores/session';
import { useSuite } from '../stores/suite';
import { SuiteExportDialog } from './SuiteExport';
import { SuiteImportDialog } from './SuiteImport';
import { ActionButton, ErrorNote, fieldError, useAction, useLoad } from './common';

const NEW = '__new__';
/** The menu's suite entries: they open a dialog, they are never the workspace shown. */
const EXPORT = '__export__';
const IMPORT = '__import__';

/** The workspace every screen shows, in the app bar: switch between them, or start a new one. */
export function WorkspaceSwitcher() {
  const { workspaceId, setWorkspace } = useSession();
  const workspaces = useLoad(() => client().invoke('workspaces.list'), []);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const { workspace } = await client().invoke('workspaces.create', { name });
    await workspaces.reload();
    setCreating(false);
    setName('');
    setWorkspace(workspace.id);
  });
  const list = workspaces.data?.workspaces ?? [];
  const current = list.find((w) => w.id === workspaceId)?.id ?? '';
  const currentName = list.find((w) => w.id === workspaceId)?.name ?? '';
  // Another screen showed a workspace this list has not seen (the demo's): read the list again.
  const unseen = Boolean(workspaces.data && workspaceId && !current);
  const { reload } = workspaces;
  useEffect(() => {
    if (unseen) void reload();
  }, [unseen, reload]);
  return (
    <>
      <Select
        variant="standard"
        value={current}
        onChange={(e) => {
          const value = e.target.value;
          if (value === NEW) setCreating(true);
          else if (value === EXPORT || value === IMPORT)
            useSuite.getState().show(value === EXPORT ? 'export' : 'import');
          else setWorkspace(value);
        }}
        inputProps={{ 'aria-label': 'Workspace' }}
        sx={{
          color: 'inherit',
          minWidth: 160,
          mr: 1,
          '& .MuiSvgIcon-root': { color: 'inherit' },
          '&:before, &:hover:not(.Mui-disabled):before': { borderColor: 'rgba(255,255,255,0.4)' },
        }}
      >
        {list.map((w) => (
          <MenuItem key={w.id} value={w.id}>
            {w.name}
          </MenuItem>
        ))}
        <Divider />
        <MenuItem value={NEW}>New workspace…</MenuItem>
        <Divider />
        <MenuItem value={EXPORT} disabled={!current}>
          Export suite…
        </MenuItem>
        <MenuItem value={IMPORT} disabled={!current}>
          Import suite…
        </MenuItem>
      </Select>
      <SuiteExportDialog workspaceName={currentName} />
      <SuiteImportDialog workspaceName={currentName} />
      <Dialog open={creating} onClose={() => setCreating(false)}>
        <DialogTitle>New workspace</DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            sx={{ mt: 1 }}
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={Boolean(fieldError(create.error, 'name'))}
            helperText={
              fieldError(create.error, 'name') ??
              'Personas, scenarios, scorecards, executions and schedules are kept per workspace'
            }
          />
          <ErrorNote
            error={create.error && !fieldError(create.error, 'name') ? create.error : null}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setCreating(false)}>Cancel</Button>
          <ActionButton busy={create.busy} onClick={() => void create.run()}>
            Create workspace
          </ActionButton>
        </DialogActions>
      </Dialog>
    </>
  );
}
