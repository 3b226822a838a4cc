import { Button } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { ErrorNote, Page } from './common';

/**
 * A screen listing one resource: its title, the "New ..." button, the error of loading or of a
 * row's action, then the screen's list and dialogs.
 */
export function ResourcePage({
  title,
  newLabel,
  onNew,
  error,
  filters,
  children,
}: {
  title: string;
  newLabel: string;
  onNew: () => void;
  error: unknown;
  /** Shown above the error, e.g. the list's filters. */
  filters?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Page
      title={title}
      actions={
        <Button variant="contained" onClick={onNew}>
          {newLabel}
        </Button>
      }
    >
      {filters}
      <ErrorNote error={error} />
      {children}
    </Page>
  );
}

/**
 * Which resource the editor is open on: `undefined` closed, `null` a new one. `close(saved)`
 * closes it and, when something was saved, calls `onSaved` (the list again).
 */
export function useEditor<T>(onSaved: () => unknown) {
  const [editing, setEditing] = useState<T | null | undefined>(undefined);
  const close = (saved: boolean) => {
    setEditing(undefined);
    if (saved) void onSaved();
  };
  return { editing, open: setEditing, close };
}
