import type { Migration } from './migration.js';

export const m002ToolCalls: Migration = {
  version: 2,
  name: 'tool call log',
  sql: `
CREATE TABLE tool_calls (
  id INTEGER PRIMARY KEY,
  tool_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  agent_id TEXT,
  source TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  status_code INTEGER,
  attempts INTEGER NOT NULL,
  error_message TEXT,
  parameters TEXT,
  result TEXT
);
-- Analytics read one tool's window: this index covers it, so their cost follows the window, not the table.
CREATE INDEX tool_calls_by_tool_time ON tool_calls (tool_id, started_ms, outcome, duration_ms, agent_id, attempts);
CREATE INDEX tool_calls_by_name_time ON tool_calls (tool_name, started_ms);
`,
};
