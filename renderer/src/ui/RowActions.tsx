import { Button, TableCell } from '@mui/material';
import type { ReactNode } from 'react';
import { ConfirmButton } from './common';

/**
 * The last cell of a resource's row: the screen's own buttons, then Edit (when it edits), then
 * Delete, which asks first and names what goes with the resource.
 */
export function RowActions({
  children,
  onEdit,
  remove,
}: {
  children?: ReactNode;
  onEdit?: () => void;
  remove: {
    /** What the row is, e.g. "persona": the question and the confirm button name it. */
    kind: string;
    name: string;
    consequence: string;
    onConfirm: () => unknown;
  };
}) {
  return (
    <TableCell>
      {children}
      {onEdit && (
        <Button size="small" onClick={onEdit}>
          Edit
        </Button>
      )}
      <ConfirmButton
        size="small"
        question={`Delete the ${remove.kind} "${remove.name}"?`}
        consequence={remove.consequence}
        confirmLabel={`Delete ${remove.kind}`}
        onConfirm={remove.onConfirm}
      >
        Delete
      </ConfirmButton>
    </TableCell>
  );
}
