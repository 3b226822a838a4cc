import { Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import { client } from '../../stores/session';
import { ErrorNote, fmtNum, useLoad } from '../../ui/common';
import { EmptyState } from '../../ui/EmptyState';

/** The tools the agent calls, with how they answer: loaded when the tab is opened. */
export function ToolsTab({ agentId }: { agentId: string }) {
  const tools = useLoad(() => client().invoke('agents.tools', { agent_id: agentId }), [agentId]);
  return (
    <>
      <ErrorNote error={tools.error} />
      <Table size="small" aria-label="Agent tools">
        <TableHead>
          <TableRow>
            <TableCell>Tool</TableCell>
            <TableCell>Endpoint</TableCell>
            <TableCell>Success rate</TableCell>
            <TableCell>Avg response</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {(tools.data?.tools ?? []).map((t) => (
            <TableRow key={t.name}>
              <TableCell>{t.name}</TableCell>
              <TableCell>{t.endpoint ?? '—'}</TableCell>
              <TableCell>{fmtNum(t.successRate, '%')}</TableCell>
              <TableCell>{fmtNum(t.avgResponseTime, ' ms')}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {tools.data?.tools.length === 0 && (
        <EmptyState text="No tools: this agent's configuration lists none. Tools the agent calls appear here with their success rate." />
      )}
    </>
  );
}
