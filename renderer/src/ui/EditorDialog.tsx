import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  type DialogProps,
} from '@mui/material';
import type { ReactNode } from 'react';
import { ActionButton, ErrorNote } from './common';

/**
 * The dialog every screen creates and edits a resource in: its fields in a column, the engine's
 * error under them, then Cancel and the save button (named for what it saves, e.g. "Save persona").
 */
export function EditorDialog({
  title,
  saveLabel,
  save,
  onClose,
  maxWidth,
  children,
}: {
  title: string;
  saveLabel: string;
  /** The save action (a `useAction`): its run, whether it is under way and its error. */
  save: { run: () => Promise<unknown>; busy: boolean; error: unknown };
  onClose: () => void;
  maxWidth?: DialogProps['maxWidth'];
  children: ReactNode;
}) {
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth={maxWidth}>
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          {children}
          <ErrorNote error={save.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          {saveLabel}
        </ActionButton>
      </DialogActions>
    </Dialog>
  );
}
