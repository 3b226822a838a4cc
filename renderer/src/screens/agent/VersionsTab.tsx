import { Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import { client } from '../../stores/session';
import { ErrorNote, fmtDate, useLoad } from '../../ui/common';
import { EmptyState } from '../../ui/EmptyState';

/** Each configuration synced from the provider, with what changed: loaded when opened. */
export function VersionsTab({ agentId }: { agentId: string }) {
  const versions = useLoad(
    () => client().invoke('agents.versions', { agent_id: agentId }),
    [agentId],
  );
  return (
    <>
      <ErrorNote error={versions.error} />
      <Table size="small" aria-label="Versions">
        <TableHead>
          <TableRow>
            <TableCell>Version</TableCell>
            <TableCell>Synced</TableCell>
            <TableCell>Changed</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {(versions.data?.versions ?? []).map((v) => (
            <TableRow key={v.version}>
              <TableCell>{v.version}</TableCell>
              <TableCell>{fmtDate(v.syncedAt)}</TableCell>
              <TableCell>{v.changedPaths.join(', ') || 'first sync'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {versions.data?.versions.length === 0 && (
        <EmptyState text="No versions yet: each sync that changes the agent's configuration adds one." />
      )}
    </>
  );
}
