import type { Migration } from './migration.js';

/**
 * Realistic callers: a persona's noise level and behaviours, an execution's line, and each
 * simulation's line with the seed of its losses and jitter. The same text on both databases.
 */
const SQL = `
ALTER TABLE personas ADD COLUMN noise TEXT;
ALTER TABLE personas ADD COLUMN behaviours TEXT;
ALTER TABLE executions ADD COLUMN line TEXT;
ALTER TABLE simulations ADD COLUMN line TEXT;
`;

export const m009RealisticCallers: Migration = {
  version: 9,
  name: 'realistic callers',
  sqlite: SQL,
  postgres: SQL,
};
