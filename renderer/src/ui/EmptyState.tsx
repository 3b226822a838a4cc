import { Box, Button, Typography } from '@mui/material';

/**
 * What a list shows when it has nothing yet: a sentence saying what belongs there, and the action
 * that adds the first one (so a new tester is never left in front of an empty table).
 */
export function EmptyState({
  text,
  actionLabel,
  onAction,
}: {
  text: string;
  actionLabel?: string;
  onAction?: () => void;
}) {
  return (
    <Box
      data-testid="empty-state"
      sx={{ py: 3, px: 2, display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}
    >
      <Typography>{text}</Typography>
      {actionLabel && onAction && (
        <Button variant="outlined" onClick={onAction}>
          {actionLabel}
        </Button>
      )}
    </Box>
  );
}
