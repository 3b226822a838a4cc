import type { Migration } from './migration.js';

export const m006ScheduleRuns: Migration = {
  version: 6,
  name: 'schedule runs',
  sqlite: `
CREATE TABLE schedule_runs (
  id TEXT PRIMARY KEY,
  schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  scheduled_for TEXT,
  started_at TEXT NOT NULL,
  execution_id TEXT,
  trig TEXT NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT,
  late INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, started_at DESC);
`,
  postgres: `
CREATE TABLE schedule_runs (
  id TEXT PRIMARY KEY,
  schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  scheduled_for TEXT,
  started_at TEXT NOT NULL,
  execution_id TEXT,
  trig TEXT NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT,
  late BIGINT NOT NULL DEFAULT 0,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
-- SQLite's indexes end with the rowid unsaid; here it is said, for the list ordered by time, then rowid.
CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, started_at DESC, rowid DESC);
`,
};
