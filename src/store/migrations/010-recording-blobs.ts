import type { Migration } from './migration.js';

/**
 * Call recordings kept in the database. A team server's instances share no disk: a recording a
 * worker made must play from any instance, so on PostgreSQL recordings live here. The desktop
 * (SQLite) keeps them as files in its data dir and leaves this table empty.
 */
export const m010RecordingBlobs: Migration = {
  version: 10,
  name: 'recording blobs',
  sqlite: `
CREATE TABLE recording_blobs (
  name TEXT PRIMARY KEY,
  saved_at TEXT NOT NULL,
  bytes BLOB NOT NULL
);
`,
  postgres: `
CREATE TABLE recording_blobs (
  name TEXT PRIMARY KEY,
  saved_at TEXT NOT NULL,
  bytes BYTEA NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
`,
};
