import type { OperationOutput } from '../../../../src/operations/catalogue';
import {
  Box,
  Chip,
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
import {
  ActionButton,
  ConfirmButton,
  ErrorNote,
  fieldError,
  useAction,
  useLoad,
} from '../../ui/common';
import { JsonToggleField } from '../../ui/JsonToggleField';
import { OverridesForm, overridesProblem } from '../../ui/OverridesForm';
import { ParseReportProvider, useParseProblems } from '../../ui/parseProblems';
import { recordOf } from '../../ui/rowValues';

type Agent = OperationOutput<'agents.get'>;
type AgentConfiguration = Agent['configuration'];

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A configuration value in a table cell: objects as JSON, nothing as a dash. */
const shown = (v: unknown): string => {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
};

/** The overrides as an object: the value in force at each overridden path. */
function overridesOf(agent: Agent): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of agent.overrides) {
    const keys = path.replace(/^configuration\./, '').split('.');
    let value: unknown = agent.configuration;
    for (const k of keys) value = isRecord(value) ? value[k] : undefined;
    let target = out;
    for (const k of keys.slice(0, -1)) {
      const next = target[k];
      target = isRecord(next) ? next : (target[k] = {});
    }
    target[keys.at(-1)!] = value;
  }
  return out;
}

/**
 * Synced value and value in force side by side; the overrides themselves are edited with a field
 * per synced leaf, or as JSON (Save waits while it does not parse).
 */
export function ConfigurationTab({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const [overrides, setOverrides] = useState<unknown>(() => overridesOf(agent));
  const problems = useParseProblems();
  const save = useAction(async () => {
    // The editor holds every override: what it no longer has goes back to the synced value.
    await client().invoke('agents.reset_overrides', { agent_id: agent.id });
    if (overrides && Object.keys(overrides).length)
      await client().invoke('agents.update', { agent_id: agent.id, configuration: overrides });
    onSaved();
  });
  const reset = useAction(async () => {
    await client().invoke('agents.reset_overrides', { agent_id: agent.id });
    onSaved();
  });
  const versions = useLoad(
    () => client().invoke('agents.versions', { agent_id: agent.id }),
    [agent.id],
  );
  const synced: Partial<AgentConfiguration> = versions.data?.versions?.[0]?.configuration ?? {};
  const rows: [string, unknown, unknown][] = [
    ['prompt', synced.prompt, agent.configuration.prompt],
    ['firstMessage', synced.firstMessage, agent.configuration.firstMessage],
    ['model.name', synced.model?.name, agent.configuration.model?.name],
    ['model.temperature', synced.model?.temperature, agent.configuration.model?.temperature],
    ['model.maxTokens', synced.model?.maxTokens, agent.configuration.model?.maxTokens],
    ['voice.voiceId', synced.voice?.voiceId, agent.configuration.voice?.voiceId],
  ];
  return (
    <Box>
      <Table size="small" aria-label="Configuration">
        <TableHead>
          <TableRow>
            <TableCell>Field</TableCell>
            <TableCell>Synced</TableCell>
            <TableCell>In force</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map(([path, a, b]) => (
            <TableRow key={path} selected={agent.overrides.includes(`configuration.${path}`)}>
              <TableCell>
                {path}
                {agent.overrides.includes(`configuration.${path}`) && (
                  <Chip size="small" label="override" color="warning" sx={{ ml: 1 }} />
                )}
              </TableCell>
              <TableCell sx={{ maxWidth: 360, whiteSpace: 'pre-wrap' }}>{shown(a)}</TableCell>
              <TableCell sx={{ maxWidth: 360, whiteSpace: 'pre-wrap' }}>{shown(b)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Typography variant="subtitle2" sx={{ mt: 2 }}>
        Local overrides (never written back to {agent.provider}), such as{' '}
        {'{"model": {"temperature": 0.7}}'}
      </Typography>
      <ParseReportProvider value={problems.report}>
        <JsonToggleField
          label="Local overrides"
          jsonLabel="Overrides"
          value={overrides}
          onChange={setOverrides}
          formProblem={overridesProblem}
          form={
            <OverridesForm
              synced={synced}
              overrides={recordOf(overrides)}
              onChange={setOverrides}
            />
          }
          error={fieldError(save.error, 'configuration')}
        />
      </ParseReportProvider>
      <ErrorNote error={save.error ?? reset.error} />
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <ActionButton busy={save.busy} disabled={problems.unparsed} onClick={() => void save.run()}>
          Save overrides
        </ActionButton>
        <ConfirmButton
          color="warning"
          disabled={!agent.overrides.length}
          question={`Reset the overrides of ${agent.name}?`}
          consequence={`Your ${agent.overrides.length} local edit(s) go; simulations use the provider's configuration again.`}
          confirmLabel="Reset overrides"
          onConfirm={() => reset.run()}
        >
          Reset overrides
        </ConfirmButton>
      </Stack>
    </Box>
  );
}
