import type { OperationOutput } from '../../../../src/operations/catalogue';
import {
  Box,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { client } from '../../stores/session';
import { ErrorNote, fmtDate, fmtNum, useLoad } from '../../ui/common';
import { EmptyState } from '../../ui/EmptyState';

type AgentCall = OperationOutput<'agents.calls'>['calls'][number];

/** The agent's last 50 calls at its provider; a call clicked shows its transcript beside them. */
export function CallsTab({ agentId }: { agentId: string }) {
  const calls = useLoad(
    () => client().invoke('agents.calls', { agent_id: agentId, limit: 50 }),
    [agentId],
  );
  const [call, setCall] = useState<AgentCall | null>(null);
  return (
    <>
      <ErrorNote error={calls.error} />
      <Stack direction="row" spacing={2}>
        <Table size="small" aria-label="Calls" sx={{ flex: 1 }}>
          <TableHead>
            <TableRow>
              <TableCell>Started</TableCell>
              <TableCell>Duration</TableCell>
              <TableCell>End</TableCell>
              <TableCell>Cost</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {(calls.data?.calls ?? []).map((c) => (
              <TableRow
                key={c.id}
                hover
                selected={call?.id === c.id}
                onClick={() => setCall(c)}
                sx={{ cursor: 'pointer' }}
              >
                <TableCell>{fmtDate(c.startedAt)}</TableCell>
                <TableCell>{fmtNum(c.durationMs && c.durationMs / 1000, ' s')}</TableCell>
                <TableCell>{c.endReason}</TableCell>
                <TableCell>{fmtNum(c.cost, ' $')}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {call && (
          <Box sx={{ flex: 1 }} aria-label="Call transcript">
            {(call.transcript ?? []).map((t, i) => (
              <Typography key={i} variant="body2">
                <b>{t.role}:</b> {t.text}
              </Typography>
            ))}
          </Box>
        )}
      </Stack>
      {calls.data?.calls.length === 0 && (
        <EmptyState text="No calls yet: the agent's calls at its provider (the last 30 days) appear here after a sync." />
      )}
    </>
  );
}
