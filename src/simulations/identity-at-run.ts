import { canonicalJson } from '../kernel/canonical-hash.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { openCredentials } from '../providers/credentials.js';
import type { AgentRecord } from '../store/agents.js';
import type { Store } from '../store/index.js';
import type { Scenario } from '../store/scenarios.js';
import type { Scorecard } from '../store/scorecards.js';
import type { IdentityAsRun } from '../store/simulation-identity.js';
import type { Simulation } from '../store/simulations.js';
import type { Channel } from '../conversation/agent-under-test.js';
import type { ModelConnection } from '../llm/types.js';
import { agentConfigUsed, scenarioHash, scorecardHash } from './run-identity.js';

/*
 * The runner reads a simulation's scenario, scorecard and agent again as it starts (runner.ts
 * `inputsOf`): an edit made while it waited in the queue is what runs. So what it tested is
 * worked out again then, from exactly what it runs with, and stored when it differs from what
 * was recorded at queue time.
 */

/** What a simulation runs with, as the runner read it when it started. */
export interface RunInputs {
  scenario: Scenario;
  variables: Record<string, string>;
  agent: AgentRecord;
  /** The models by role now (the replica's is used on the replica channel). */
  connections: { replica: ModelConnection | null };
}

/** The scenario's scorecard as it is now, or null (none, or deleted since). */
async function scorecardOf(
  store: Store,
  workspaceId: string,
  scenario: Scenario,
): Promise<Scorecard | null> {
  return scenario.scorecard
    ? ((await store.scorecards.get(workspaceId, scenario.scorecard)) ?? null)
    : null;
}

/** The agent's credentials, or null when it has none or they no longer open. */
function credentialsOf(secrets: SecretBox, agent: AgentRecord) {
  try {
    return openCredentials(secrets, agent);
  } catch {
    return null; // the channel reports unreadable credentials as the run's own error
  }
}

const sameIdentity = (sim: Simulation, id: IdentityAsRun): boolean =>
  sim.scenario_hash === id.scenario_hash &&
  sim.scorecard_hash === id.scorecard_hash &&
  canonicalJson(sim.agent_config) === canonicalJson(id.agent_config);

/**
 * Works out what the simulation tests from what it runs with, and stores it (and its execution's
 * hashes again) when it is not what was recorded as it was queued. Answers the scorecard read for
 * it, the one its scoring must use (the one `scorecard_hash` names).
 */
export async function identityAsRun(
  deps: { store: Store; secrets: SecretBox },
  sim: Simulation & { workspace_id: string },
  inputs: RunInputs,
): Promise<Scorecard | null> {
  const { scenario, agent } = inputs;
  const scorecard = await scorecardOf(deps.store, sim.workspace_id, scenario);
  const identity: IdentityAsRun = {
    scenario_hash: scenarioHash(scenario, inputs.variables),
    scorecard_hash: scorecardHash(scorecard, scenario),
    agent_config: await agentConfigUsed(deps.store, {
      agent,
      channel: sim.channel as Channel,
      replicaModel: inputs.connections.replica?.model ?? null,
      credentials: credentialsOf(deps.secrets, agent),
    }),
  };
  if (!sameIdentity(sim, identity))
    await deps.store.simulations.reidentify(sim.id, sim.execution_id, identity);
  return scorecard;
}
