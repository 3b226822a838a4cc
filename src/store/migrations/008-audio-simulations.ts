import type { Migration } from './migration.js';

/**
 * Audio simulations: a scenario's audio choice, a persona's voice, an execution's mode, and what
 * each audio call measured and whether its recording is kept. The same text on both databases.
 */
const SQL = `
ALTER TABLE scenarios ADD COLUMN audio TEXT;
ALTER TABLE personas ADD COLUMN voice TEXT;
ALTER TABLE executions ADD COLUMN mode TEXT;
ALTER TABLE simulations ADD COLUMN mode TEXT NOT NULL DEFAULT 'text';
ALTER TABLE simulations ADD COLUMN audio TEXT;
ALTER TABLE simulations ADD COLUMN recording TEXT;
`;

export const m008AudioSimulations: Migration = {
  version: 8,
  name: 'audio simulations',
  sqlite: SQL,
  postgres: SQL,
};
