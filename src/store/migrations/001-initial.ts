import type { Migration } from './migration.js';

export const m001Initial: Migration = {
  version: 1,
  name: 'initial',
  sqlite: `
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  label TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);

CREATE TABLE workspace_tokens (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  provider_agent_id TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (provider, provider_agent_id)
);

CREATE TABLE personas (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  language TEXT NOT NULL,
  prompt TEXT NOT NULL,
  emotion TEXT NOT NULL,
  difficulty TEXT NOT NULL,
  background_noise TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by_id TEXT NOT NULL,
  created_by_name TEXT NOT NULL
);
CREATE INDEX personas_by_created ON personas (workspace_id, created_at, id);
CREATE INDEX personas_by_updated ON personas (workspace_id, updated_at, id);
CREATE INDEX personas_by_name ON personas (workspace_id, name COLLATE NOCASE, id);

-- Substring search on names: a trigram index answers "name contains x" without a full scan.
CREATE VIRTUAL TABLE personas_name_fts USING fts5 (name, content = 'personas', content_rowid = 'rowid', tokenize = 'trigram');
CREATE TRIGGER personas_fts_insert AFTER INSERT ON personas BEGIN
  INSERT INTO personas_name_fts (rowid, name) VALUES (new.rowid, new.name);
END;
CREATE TRIGGER personas_fts_delete AFTER DELETE ON personas BEGIN
  INSERT INTO personas_name_fts (personas_name_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
CREATE TRIGGER personas_fts_update AFTER UPDATE OF name ON personas BEGIN
  INSERT INTO personas_name_fts (personas_name_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO personas_name_fts (rowid, name) VALUES (new.rowid, new.name);
END;

CREATE TABLE scorecards (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  metrics TEXT NOT NULL,
  pass_threshold REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX scorecards_by_workspace ON scorecards (workspace_id, created_at);

CREATE TABLE scenarios (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prompt TEXT NOT NULL,
  prompt_variables TEXT NOT NULL DEFAULT '[]',
  personas TEXT NOT NULL DEFAULT '[]',
  target_agents TEXT NOT NULL DEFAULT '[]',
  scorecard_id TEXT REFERENCES scorecards(id),
  tags TEXT NOT NULL DEFAULT '[]',
  expected_outcome TEXT,
  expected_behavior TEXT,
  script TEXT,
  max_turns INTEGER,
  max_duration_ms INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by_id TEXT NOT NULL,
  created_by_name TEXT NOT NULL
);
CREATE INDEX scenarios_by_created ON scenarios (workspace_id, created_at, id);

CREATE TABLE executions (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE simulations (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
  persona_id TEXT,
  agent_id TEXT,
  status TEXT NOT NULL,
  score REAL,
  passed INTEGER,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT
);
CREATE INDEX simulations_by_persona ON simulations (persona_id, status);
CREATE INDEX simulations_by_scenario ON simulations (scenario_id, status);
CREATE INDEX simulations_by_workspace ON simulations (workspace_id, created_at);

CREATE TABLE schedules (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id),
  periodicity TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  period_end_condition TEXT NOT NULL DEFAULT 'never',
  is_active INTEGER NOT NULL DEFAULT 1,
  next_run TEXT,
  last_run TEXT,
  scheduled_runs INTEGER NOT NULL DEFAULT 0,
  ended_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX schedules_by_workspace ON schedules (workspace_id, created_at);

CREATE TABLE tools (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  definition TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE tool_versions (
  tool_id TEXT NOT NULL REFERENCES tools(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  definition TEXT NOT NULL,
  change TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by_id TEXT NOT NULL,
  created_by_name TEXT NOT NULL,
  PRIMARY KEY (tool_id, version)
);

CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  tool_id TEXT REFERENCES tools(id),
  is_active INTEGER NOT NULL DEFAULT 1,
  state TEXT NOT NULL DEFAULT 'ok',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  postgres: `
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  label TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE workspace_tokens (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  provider_agent_id TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  UNIQUE (provider, provider_agent_id)
);

CREATE TABLE personas (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  language TEXT NOT NULL,
  prompt TEXT NOT NULL,
  emotion TEXT NOT NULL,
  difficulty TEXT NOT NULL,
  background_noise TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by_id TEXT NOT NULL,
  created_by_name TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX personas_by_created ON personas (workspace_id, created_at, id);
CREATE INDEX personas_by_updated ON personas (workspace_id, updated_at, id);
CREATE INDEX personas_by_name ON personas (workspace_id, lower(name), id);

-- Substring search on names: a trigram index answers "name contains x" (ILIKE) without a full scan.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX personas_name_trgm ON personas USING GIN (name gin_trgm_ops);

CREATE TABLE scorecards (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  metrics TEXT NOT NULL,
  pass_threshold DOUBLE PRECISION NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX scorecards_by_workspace ON scorecards (workspace_id, created_at);

CREATE TABLE scenarios (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prompt TEXT NOT NULL,
  prompt_variables TEXT NOT NULL DEFAULT '[]',
  personas TEXT NOT NULL DEFAULT '[]',
  target_agents TEXT NOT NULL DEFAULT '[]',
  scorecard_id TEXT REFERENCES scorecards(id),
  tags TEXT NOT NULL DEFAULT '[]',
  expected_outcome TEXT,
  expected_behavior TEXT,
  script TEXT,
  max_turns BIGINT,
  max_duration_ms BIGINT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by_id TEXT NOT NULL,
  created_by_name TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX scenarios_by_created ON scenarios (workspace_id, created_at, id);

CREATE TABLE executions (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE simulations (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
  persona_id TEXT,
  agent_id TEXT,
  status TEXT NOT NULL,
  score DOUBLE PRECISION,
  passed BIGINT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX simulations_by_persona ON simulations (persona_id, status);
CREATE INDEX simulations_by_scenario ON simulations (scenario_id, status);
CREATE INDEX simulations_by_workspace ON simulations (workspace_id, created_at);

CREATE TABLE schedules (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id),
  periodicity TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  period_end_condition TEXT NOT NULL DEFAULT 'never',
  is_active BIGINT NOT NULL DEFAULT 1,
  next_run TEXT,
  last_run TEXT,
  scheduled_runs BIGINT NOT NULL DEFAULT 0,
  ended_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX schedules_by_workspace ON schedules (workspace_id, created_at);

CREATE TABLE tools (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  definition TEXT NOT NULL,
  version BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE tool_versions (
  tool_id TEXT NOT NULL REFERENCES tools(id) ON DELETE CASCADE,
  version BIGINT NOT NULL,
  definition TEXT NOT NULL,
  change TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by_id TEXT NOT NULL,
  created_by_name TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (tool_id, version)
);

CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  tool_id TEXT REFERENCES tools(id),
  is_active BIGINT NOT NULL DEFAULT 1,
  state TEXT NOT NULL DEFAULT 'ok',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
`,
};
