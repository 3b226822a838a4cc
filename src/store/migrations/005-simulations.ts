import type { Migration } from './migration.js';

export const m005Simulations: Migration = {
  version: 5,
  name: 'simulation queue and results',
  sqlite: `
ALTER TABLE executions ADD COLUMN variables TEXT NOT NULL DEFAULT '{}';
ALTER TABLE executions ADD COLUMN runs INTEGER NOT NULL DEFAULT 1;
ALTER TABLE executions ADD COLUMN channel TEXT;
ALTER TABLE executions ADD COLUMN estimated_completion TEXT;
ALTER TABLE executions ADD COLUMN cancelled_at TEXT;

ALTER TABLE simulations ADD COLUMN channel TEXT;
ALTER TABLE simulations ADD COLUMN duration_ms INTEGER;
ALTER TABLE simulations ADD COLUMN end_reason TEXT;
ALTER TABLE simulations ADD COLUMN turns TEXT NOT NULL DEFAULT '[]';
ALTER TABLE simulations ADD COLUMN results TEXT NOT NULL DEFAULT '[]';
ALTER TABLE simulations ADD COLUMN usage TEXT NOT NULL DEFAULT '{"llm_calls":0,"input_tokens":0,"output_tokens":0}';
ALTER TABLE simulations ADD COLUMN error TEXT;
ALTER TABLE simulations ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE simulations ADD COLUMN seq INTEGER;
CREATE INDEX simulations_queue ON simulations (status, seq);
CREATE INDEX simulations_by_execution ON simulations (execution_id, seq);
CREATE INDEX executions_by_workspace ON executions (workspace_id, created_at);
`,
  postgres: `
ALTER TABLE executions ADD COLUMN variables TEXT NOT NULL DEFAULT '{}';
ALTER TABLE executions ADD COLUMN runs BIGINT NOT NULL DEFAULT 1;
ALTER TABLE executions ADD COLUMN channel TEXT;
ALTER TABLE executions ADD COLUMN estimated_completion TEXT;
ALTER TABLE executions ADD COLUMN cancelled_at TEXT;

ALTER TABLE simulations ADD COLUMN channel TEXT;
ALTER TABLE simulations ADD COLUMN duration_ms BIGINT;
ALTER TABLE simulations ADD COLUMN end_reason TEXT;
ALTER TABLE simulations ADD COLUMN turns TEXT NOT NULL DEFAULT '[]';
ALTER TABLE simulations ADD COLUMN results TEXT NOT NULL DEFAULT '[]';
ALTER TABLE simulations ADD COLUMN usage TEXT NOT NULL DEFAULT '{"llm_calls":0,"input_tokens":0,"output_tokens":0}';
ALTER TABLE simulations ADD COLUMN error TEXT;
ALTER TABLE simulations ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE simulations ADD COLUMN seq BIGINT;
CREATE INDEX simulations_queue ON simulations (status, seq);
CREATE INDEX simulations_by_execution ON simulations (execution_id, seq);
-- SQLite's indexes end with the rowid unsaid; here it is said, for the list ordered by time, then rowid.
CREATE INDEX executions_by_workspace ON executions (workspace_id, created_at, rowid);
`,
};
