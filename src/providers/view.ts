import type { AgentRecord } from '../store/agents.js';
import type { Store } from '../store/index.js';
import { deepMerge, leafPaths } from './diff.js';
import type { AgentConfiguration, AgentTool } from './types.js';

const pct = (part: number, total: number): number | null =>
  total === 0 ? null : Math.round((10_000 * part) / total) / 100;

/** The effective configuration: the synced snapshot with the local overrides on top. */
export const effectiveConfiguration = (agent: AgentRecord): AgentConfiguration =>
  deepMerge(
    agent.snapshot.configuration,
    (agent.overrides as { configuration?: unknown }).configuration,
  );

/** The channel simulations reach the agent on unless told otherwise. */
export function channelOf(agent: AgentRecord): 'provider' | 'replica' | 'http' {
  if (agent.provider === 'http' || agent.provider === 'demo') return 'http';
  return (
    (agent.channel as 'provider' | 'replica' | null) ??
    (agent.snapshot.textChat ? 'provider' : 'replica')
  );
}

/** The Agent object of the specification, plus what sync and overrides add. */
export async function agentView(store: Store, agent: AgentRecord) {
  const f = await store.calls.figures(agent.id);
  const avgScore = (await store.simulations.agentScore(agent.id)).avg;
  const snapshot = agent.snapshot;
  return {
    id: agent.id,
    name: agent.name,
    provider: agent.provider,
    providerAgentId: agent.providerAgentId,
    status: agent.status,
    description: agent.description,
    configuration: effectiveConfiguration(agent),
    phoneNumbers: snapshot.phoneNumbers ?? [],
    knowledgeBases: snapshot.knowledgeBases ?? [],
    routingRules: snapshot.routingRules ?? [],
    channel: channelOf(agent),
    tags: agent.tags,
    workspaces: await store.agents.workspacesOf(agent.id),
    stats: {
      totalCalls: f.totalCalls,
      avgScore: avgScore === null ? null : Math.round(avgScore * 100) / 100,
      successRate: pct(f.successful, f.knownOutcome),
    },
    usage: {
      totalCalls: f.totalCalls,
      totalMinutes: Math.round(f.totalDurationMs / 600) / 100,
      totalCostUsd: f.totalCostUsd === null ? null : Math.round(f.totalCostUsd * 10_000) / 10_000,
    },
    qualityMetrics: {
      successRate: pct(f.successful, f.knownOutcome),
      avgDurationMs: f.totalCalls ? Math.round(f.totalDurationMs / f.totalCalls) : null,
    },
    sync: {
      status: agent.syncStatus,
      lastSyncedAt: agent.lastSyncedAt,
      importedCalls: f.totalCalls,
      error: agent.syncError,
    },
    overrides: leafPaths(agent.overrides),
    regressionSuite: agent.regressionSuite ?? null,
    monitoring: agent.monitoring ?? null,
    parentId: agent.parentId ?? null,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
  };
}

/** An agent's tools with the success rate and response time of their calls (ours and imported). */
export function agentTools(store: Store, agent: AgentRecord) {
  const toolOf = async (t: AgentTool) => {
    const r = await store.toolCalls.figuresOfName(
      t.name,
      agent.id,
      (await store.tools.findByName(t.name))?.id ?? null,
    );
    return {
      name: t.name,
      description: t.description,
      type: t.type,
      endpoint: t.endpoint,
      method: t.method,
      auth: t.auth,
      successRate: pct(r.ok, r.n),
      avgResponseTime: r.avg === null ? null : Math.round(r.avg),
    };
  };
  return Promise.all(effectiveConfiguration(agent).tools.map(toolOf));
}
