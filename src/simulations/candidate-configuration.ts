import { deepMerge } from '../domain/deep-merge.js';
import type { AgentRecord } from '../store/agents.js';
import type { Store } from '../store/index.js';

/**
 * An experiment's candidate is its agent with a configuration on top, for its own executions
 * only: the agent keeps its id (so the comparison pairs each candidate run with the baseline's run
 * of the same scenario, persona, agent and run number), and nothing is stored on the agent. The
 * configuration merges over the agent's overrides as PATCH /v1/agents/{id} would merge it.
 */
export const withConfiguration = (
  agent: AgentRecord,
  configuration: Record<string, unknown> | undefined,
): AgentRecord =>
  configuration ? { ...agent, overrides: deepMerge(agent.overrides, { configuration }) } : agent;

/** The agent as a simulation of this execution runs it: a candidate's with its configuration. */
export async function agentInExecution(
  store: Store,
  executionId: string,
  agent: AgentRecord,
): Promise<AgentRecord> {
  return withConfiguration(agent, await store.experiments.candidateConfiguration(executionId));
}
