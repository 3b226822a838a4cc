import type { Migration } from './migration.js';

export const m003Providers: Migration = {
  version: 3,
  name: 'provider connections and call history',
  sql: `
ALTER TABLE agents ADD COLUMN description TEXT;
ALTER TABLE agents ADD COLUMN snapshot TEXT NOT NULL DEFAULT '{}';
ALTER TABLE agents ADD COLUMN overrides TEXT NOT NULL DEFAULT '{}';
ALTER TABLE agents ADD COLUMN channel TEXT;
ALTER TABLE agents ADD COLUMN credentials TEXT;
ALTER TABLE agents ADD COLUMN sync_status TEXT NOT NULL DEFAULT 'idle';
ALTER TABLE agents ADD COLUMN last_synced_at TEXT;
ALTER TABLE agents ADD COLUMN sync_error TEXT;
ALTER TABLE agents ADD COLUMN calls_cursor_ms INTEGER;

CREATE TABLE agent_versions (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  synced_at TEXT NOT NULL,
  changed_paths TEXT NOT NULL,
  configuration TEXT NOT NULL,
  PRIMARY KEY (agent_id, version)
);

CREATE TABLE calls (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  provider_call_id TEXT NOT NULL,
  started_ms INTEGER,
  started_at TEXT,
  ended_at TEXT,
  duration_ms INTEGER,
  end_reason TEXT,
  cost REAL,
  cost_original TEXT,
  recording_url TEXT,
  summary TEXT,
  successful INTEGER,
  transcript TEXT NOT NULL,
  tool_calls TEXT NOT NULL,
  UNIQUE (agent_id, provider_call_id)
);
CREATE INDEX calls_by_agent_time ON calls (agent_id, started_ms DESC);

CREATE TABLE agent_errors (
  id INTEGER PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  call_id TEXT
);
CREATE INDEX agent_errors_by_agent ON agent_errors (agent_id, id DESC);
`,
};
