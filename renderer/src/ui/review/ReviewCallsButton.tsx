import { Button } from '@mui/material';
import { useState } from 'react';
import { ReviewDialog } from './ReviewDialog';

/**
 * The Production tab's way into the review: the agent's scored calls on its monitoring scorecard,
 * labelled in the workspace the evaluations were made in (where their labels belong).
 */
export function ReviewCallsButton({
  agentId,
  monitoring,
}: {
  agentId: string;
  monitoring: { workspaceId: string; scorecardId: string } | null;
}) {
  const [open, setOpen] = useState(false);
  if (!monitoring) return null;
  return (
    <>
      <Button variant="outlined" onClick={() => setOpen(true)} sx={{ my: 1 }}>
        Review scored calls
      </Button>
      {open && (
        <ReviewDialog
          scope={{
            workspaceId: monitoring.workspaceId,
            scorecardId: monitoring.scorecardId,
            agentId,
          }}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
