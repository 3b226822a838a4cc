import type { OperationOutput } from '../../../src/operations/catalogue';
import { JsonToggleField } from './JsonToggleField';
import { OverridesForm, overridesProblem } from './OverridesForm';
import { recordOf } from './rowValues';

type Agent = OperationOutput<'agents.get'>;

/**
 * A configuration to put on top of an agent (a variant's, an experiment's candidate): a field per
 * leaf of the agent's configuration in force, or JSON, as PATCH /v1/agents/{id} takes it.
 */
export function ConfigurationEditor({
  agent,
  value,
  onChange,
  error,
}: {
  agent: Agent;
  value: unknown;
  onChange: (value: unknown) => void;
  error?: string;
}) {
  return (
    <JsonToggleField
      label="Configuration"
      jsonLabel="Configuration on top of the agent"
      value={value}
      onChange={onChange}
      formProblem={overridesProblem}
      form={
        <OverridesForm
          synced={agent.configuration}
          overrides={recordOf(value)}
          onChange={onChange}
        />
      }
      error={error}
    />
  );
}
