import type { Migration } from './migration.js';

/**
 * Agents are engine-wide, but a workspace token runs only the agents shared with its workspace:
 * one row per agent and workspace it is shared with. None is shared until an API key says so.
 */
export const m011AgentWorkspaces: Migration = {
  version: 11,
  name: 'agent workspaces',
  sqlite: `
CREATE TABLE agent_workspaces (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (agent_id, workspace_id)
);
`,
  postgres: `
CREATE TABLE agent_workspaces (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (agent_id, workspace_id),
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
`,
};
