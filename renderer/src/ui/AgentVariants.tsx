import type { OperationInput, OperationOutput } from '../../../src/operations/catalogue';
import {
  Box,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { client, useSession } from '../stores/session';
import { ActionButton, ErrorNote, fieldError, fmtDate, useAction, useLoad } from './common';
import { ConfigurationEditor } from './ConfigurationEditor';
import { EditorDialog } from './EditorDialog';
import { ExperimentDialog } from './ExperimentDialog';

type Agent = OperationOutput<'agents.get'>;
type Configuration = OperationInput<'agents.createVariant'>['configuration'];

/**
 * Agents in list order with each variant right under its parent (a variant whose parent is not in
 * the list keeps its place), so lists can show variants nested.
 */
export function nestVariants<A extends { id: string; parentId: string | null }>(agents: A[]): A[] {
  const ids = new Set(agents.map((a) => a.id));
  const top = agents.filter((a) => !a.parentId || !ids.has(a.parentId));
  return top.flatMap((a) => [a, ...agents.filter((v) => v.parentId === a.id)]);
}

/** A new variant: a name and its configuration on top of the agent. */
function NewVariantDialog({
  agent,
  onClose,
  onMade,
}: {
  agent: Agent;
  onClose: () => void;
  onMade: () => void;
}) {
  const [name, setName] = useState(`${agent.name} (variant)`);
  const [configuration, setConfiguration] = useState<unknown>({});
  const save = useAction(async () => {
    await client().invoke('agents.createVariant', {
      agent_id: agent.id,
      name,
      configuration: configuration as Configuration,
    });
    onMade();
    onClose();
  });
  return (
    <EditorDialog
      title={`New variant of ${agent.name}`}
      saveLabel="Create variant"
      save={save}
      onClose={onClose}
      maxWidth="md"
      fields={{ name: 'Name', configuration: 'Configuration' }}
    >
      <TextField
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={Boolean(fieldError(save.error, 'name'))}
        helperText={fieldError(save.error, 'name')}
      />
      <ConfigurationEditor
        agent={agent}
        value={configuration}
        onChange={setConfiguration}
        error={fieldError(save.error, 'configuration')}
      />
    </EditorDialog>
  );
}

/**
 * The agent's variants (each an agent of its own on the replica, following this one's syncs),
 * "New variant", and "Experiment" (this agent now against a configuration on top). A variant's
 * page says whose variant it is instead.
 */
export function AgentVariants({ agent, onApplied }: { agent: Agent; onApplied: () => void }) {
  const navigate = useSession((s) => s.navigate);
  const [dialog, setDialog] = useState<'variant' | 'experiment' | null>(null);
  const variants = useLoad(
    () => client().invoke('agents.variants', { agent_id: agent.id }),
    [agent.id],
  );
  if (agent.parentId)
    return (
      <Typography variant="body2" sx={{ mb: 2 }}>
        A variant of{' '}
        <a href={`#agents/${agent.parentId}`} onClick={() => navigate(`agents/${agent.parentId}`)}>
          its parent agent
        </a>
        : it runs on the replica, following the parent&apos;s syncs and overrides.
      </Typography>
    );
  // Agents of our own have no configuration here to vary, and no replica.
  if (agent.provider === 'http' || agent.provider === 'demo') return null;
  const list = variants.data?.variants ?? [];
  return (
    <Box component="section" aria-labelledby="agent-variants-title" sx={{ mb: 2 }}>
      <Typography id="agent-variants-title" variant="subtitle2">
        Variants
      </Typography>
      {list.length > 0 && (
        <Table size="small" aria-label="Variants">
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell>Its own configuration</TableCell>
              <TableCell>Created</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {list.map((v) => (
              <TableRow
                key={v.id}
                hover
                tabIndex={0}
                sx={{ cursor: 'pointer' }}
                onClick={() => navigate(`agents/${v.id}`)}
                onKeyDown={(e) => e.key === 'Enter' && navigate(`agents/${v.id}`)}
              >
                <TableCell>{v.name}</TableCell>
                <TableCell>{v.overrides.join(', ') || '—'}</TableCell>
                <TableCell>{fmtDate(v.created_at)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <ActionButton onClick={() => setDialog('variant')}>New variant</ActionButton>
        <ActionButton onClick={() => setDialog('experiment')}>Experiment</ActionButton>
      </Stack>
      <ErrorNote error={variants.error} />
      {dialog === 'variant' && (
        <NewVariantDialog
          agent={agent}
          onClose={() => setDialog(null)}
          onMade={() => void variants.reload()}
        />
      )}
      {dialog === 'experiment' && (
        <ExperimentDialog agent={agent} onClose={() => setDialog(null)} onApplied={onApplied} />
      )}
    </Box>
  );
}
