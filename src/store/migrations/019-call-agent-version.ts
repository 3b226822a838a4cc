import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * Each imported call's agent version: the configuration version synced most recently at or before
 * the call started (null for a call older than the first synced version). Calls imported before
 * this stay null: their versions are never guessed after the fact.
 */
export const m019CallAgentVersion: Migration = {
  version: 19,
  name: 'call agent version',
  ...forBothDialects((db) => [db.schema.alterTable('calls').addColumn('agent_version', 'integer')]),
};
