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
    /** The delete's dry run: a refusal (in use) is shown before any question is asked. */
    check?: () => Promise<unknown>;
  };
}) {
  // A row may open its resource on a click or Enter: the actions' own clicks stay in their cell
  // (React carries them up from the confirmation dialog's portal too).
  return (
    <TableCell onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
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
        check={remove.check}
      >
        Delete
      </ConfirmButton>
    </TableCell>
  );
}
