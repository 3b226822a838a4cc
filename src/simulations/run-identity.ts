import { canonicalHash } from '../kernel/canonical-hash.js';
import type { AgentConfigUsed } from '../domain/simulations.js';
import type { Channel } from '../conversation/agent-under-test.js';
import type { AgentCredentials } from '../providers/credentials.js';
import { leafPaths } from '../providers/diff.js';
import { providerHash } from '../providers/raw-record.js';
import { effectiveConfiguration } from '../providers/view.js';
import type { AgentRecord } from '../store/agents.js';
import type { Store } from '../store/index.js';
import type { Scenario } from '../store/scenarios.js';
import type { Scorecard } from '../store/scorecards.js';
import { metricsFor } from './scoring.js';

/*
 * What a simulation tests, reduced to hashes so that two results can be told to come from the same
 * test: the scenario as run, the scorecard it is scored on, and the agent as reached. Worked out
 * when an execution's simulations are queued, and again as each starts (identity-at-run.ts): the
 * runner reads the scenario, scorecard and agent as they are then.
 */

/** The pass mark a simulation is scored against when its scenario has no scorecard (runner.ts). */
const DEFAULT_PASS_THRESHOLD = 70;

/** SHA-256 of the scenario as its simulations run it: the caller's side of the test. */
export const scenarioHash = (scenario: Scenario, variables: Record<string, string>): string =>
  canonicalHash({
    prompt: scenario.prompt,
    variables,
    script: scenario.script,
    maxTurns: scenario.maxTurns,
    audio: scenario.audio,
  });

/**
 * SHA-256 of what scores the simulations: every metric they are scored on (the scorecard's, and
 * the checks the scenario's expected behaviour and outcome add), by what decides a result (names
 * and ids are labels), and the pass mark.
 */
export function scorecardHash(scorecard: Scorecard | null, scenario: Scenario): string {
  const metrics = metricsFor(
    scorecard,
    scenario.expectedBehavior,
    scenario.expectedOutcome,
    scenario.script,
  );
  return canonicalHash({
    metrics: metrics.map((m) => ({
      type: m.type,
      config: m.config,
      weight: m.weight,
      critical: m.critical,
    })),
    passThreshold: scorecard?.passThreshold ?? DEFAULT_PASS_THRESHOLD,
  });
}

/** Our tools the replica offers the model (the agent's tools we define), each at its version now. */
async function replicaTools(store: Store, agent: AgentRecord): Promise<AgentConfigUsed['tools']> {
  const found = await Promise.all(
    effectiveConfiguration(agent).tools.map((t) => store.tools.findByName(t.name)),
  );
  return found.flatMap((t) => (t ? [{ name: t.name, version: t.version }] : []));
}

/** What the agent's identity is worked out from: the agent, how it is reached, its credentials. */
export interface AgentReached {
  agent: AgentRecord;
  channel: Channel;
  /** The replica role's model (used on the replica channel). */
  replicaModel: string | null;
  /** Its opened credentials (an http agent's provider hash is made of them), or null. */
  credentials: AgentCredentials | null;
}

/**
 * The agent as a simulation reaches it on `channel`. `provider_hash` is the provider's raw agent
 * record's (providers/raw-record.ts); null where none is kept yet, never invented.
 */
export async function agentConfigUsed(
  store: Store,
  { agent, channel, replicaModel, credentials }: AgentReached,
): Promise<AgentConfigUsed> {
  const ownUrl = agent.provider === 'http' || agent.provider === 'demo';
  // A variant has no history of its own: it follows its parent's syncs, so the parent's version
  // is the one in force.
  const version = ownUrl ? undefined : await store.agents.latestVersion(agent.parentId ?? agent.id);
  const onReplica = channel === 'replica';
  const { version_id, ...rest }: Omit<AgentConfigUsed, 'hash'> = {
    version_id: version?.version ?? null,
    provider_hash: providerHash(agent, credentials),
    overrides: leafPaths(agent.overrides),
    channel,
    replica_model: onReplica ? replicaModel : null,
    tools: onReplica ? await replicaTools(store, agent) : [],
  };
  const hash = canonicalHash({ configuration: effectiveConfiguration(agent), version_id, ...rest });
  // In answer order: the version and the hash first.
  return { version_id, hash, ...rest };
}
