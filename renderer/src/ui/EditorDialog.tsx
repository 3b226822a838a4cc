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
import type { FieldLabels } from './fieldErrors';
import { ParseReportProvider, useParseProblems } from './parseProblems';

/**
 * The dialog every screen creates and edits a resource in: its fields in a column, the engine's
 * error under them, then Cancel and the save button (named for what it saves, e.g. "Save persona").
 * The save button is disabled while a field in it does not parse (a raw JSON view, say).
 */
export function EditorDialog({
  title,
  saveLabel,
  save,
  onClose,
  maxWidth,
  fields,
  children,
}: {
  title: string;
  saveLabel: string;
  /** The save action (a `useAction`): its run, whether it is under way and its error. */
  save: { run: () => Promise<unknown>; busy: boolean; error: unknown };
  onClose: () => void;
  maxWidth?: DialogProps['maxWidth'];
  /** The fields shown, by engine path, with their labels: their errors are said there only. */
  fields?: FieldLabels;
  children: ReactNode;
}) {
  const problems = useParseProblems();
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth={maxWidth}>
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <ParseReportProvider value={problems.report}>{children}</ParseReportProvider>
          <ErrorNote error={save.error} fields={fields} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <ActionButton
          busy={save.busy}
          disabled={problems.unparsed}
          title={problems.unparsed ? 'A field does not parse yet: fix it first' : undefined}
          onClick={() => void save.run()}
        >
          {saveLabel}
        </ActionButton>
      </DialogActions>
    </Dialog>
  );
}
