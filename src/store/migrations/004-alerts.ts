import type { Migration } from './migration.js';

export const m004Alerts: Migration = {
  version: 4,
  name: 'settings and alert events',
  sqlite: `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

ALTER TABLE alerts ADD COLUMN last_fired_at TEXT;

CREATE TABLE alert_events (
  id TEXT PRIMARY KEY,
  alert_id TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  value REAL,
  threshold REAL,
  time_window TEXT,
  at TEXT NOT NULL,
  deliveries TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX alert_events_by_alert ON alert_events (alert_id, at DESC);
`,
  postgres: `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);

ALTER TABLE alerts ADD COLUMN last_fired_at TEXT;

CREATE TABLE alert_events (
  id TEXT PRIMARY KEY,
  alert_id TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  value DOUBLE PRECISION,
  threshold DOUBLE PRECISION,
  time_window TEXT,
  at TEXT NOT NULL,
  deliveries TEXT NOT NULL DEFAULT '[]',
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
-- SQLite's indexes end with the rowid unsaid; here it is said, for the list ordered by time, then rowid.
CREATE INDEX alert_events_by_alert ON alert_events (alert_id, at DESC, rowid DESC);
`,
};
