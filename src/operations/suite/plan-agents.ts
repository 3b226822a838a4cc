import type { Agent } from '../../domain/agents.js';
import { placeholderName } from './kinds.js';
import type { Manifest } from './manifest.js';
import type { AgentStep } from './plan-types.js';
import { problemAt, type Locator, type SuiteProblem } from './problems.js';
import { readSecretFields } from './secrets.js';

/**
 * The agents of callbench.yaml (#38): each resolves by provider and provider agent id to a
 * connected agent; an http agent that is not connected yet is connected by the apply (its URL,
 * format and key from the file); any other missing agent is a problem (its provider's key is
 * needed, which a suite never holds).
 */
export function planAgents(
  where: Locator,
  manifest: Manifest,
  connected: Agent[],
  values: Readonly<Record<string, string>>,
): { steps: AgentStep[]; problems: SuiteProblem[] } {
  const steps: AgentStep[] = [];
  const problems: SuiteProblem[] = [];
  const seen = new Set<string>();
  manifest.agents.forEach((agent, i) => {
    const at = (field: string[], message: string) =>
      problems.push(problemAt(where, ['agents', i, ...field], message));
    if (seen.has(agent.key)) at(['key'], `the agent key '${agent.key}' is listed twice`);
    seen.add(agent.key);
    const found = connected.find(
      (a) => a.provider === agent.provider && a.providerAgentId === agent.providerAgentId,
    );
    const entry = {
      kind: 'agent' as const,
      key: agent.key,
      name: found?.name ?? agent.providerAgentId,
      file: where.file,
      changes: [],
    };
    if (found) {
      steps.push({ entry: { ...entry, action: 'unchanged' }, key: agent.key, id: found.id });
      return;
    }
    if (agent.provider !== 'http') {
      at(
        [],
        `the ${agent.provider} agent ${agent.providerAgentId} is not connected: connect it first (POST /v1/agents/connect with its provider's key)`,
      );
      return;
    }
    if (!agent.url) at(['url'], 'is required to connect an http agent');
    // A clear key or a reserved name is manifestSecretProblems' to report.
    const name = placeholderName(agent.apiKey);
    if (name !== null && !Object.hasOwn(values, name))
      at(['apiKey'], `no value for the secret ${name}: send it in the plan's secrets`);
    steps.push({
      entry: { ...entry, action: 'create' },
      key: agent.key,
      id: null,
      connect: {
        name: agent.providerAgentId,
        url: agent.url ?? '',
        ...(agent.format && { format: agent.format }),
        ...(name !== null && values[name] !== undefined && { apiKey: values[name] }),
      },
    });
  });
  return { steps, problems };
}

/** Placeholders anywhere in callbench.yaml but an agent's apiKey: a problem each. */
export function manifestSecretProblems(where: Locator, manifest: Manifest): SuiteProblem[] {
  const paths = manifest.agents.flatMap((a, i) =>
    a.apiKey === undefined ? [] : [`agents.${i}.apiKey`],
  );
  const { problems } = readSecretFields(where, manifest, paths);
  return problems;
}
