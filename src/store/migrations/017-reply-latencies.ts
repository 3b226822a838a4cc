import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * Each audio simulation's agent reply latencies (a JSON array of milliseconds, in turn order),
 * written when the simulation ends: a comparison's voice rows read them without parsing the
 * turns. Rows made before this stay null, and their readers fall back to the turns.
 */
export const m017ReplyLatencies: Migration = {
  version: 17,
  name: 'reply latencies',
  ...forBothDialects((db) => [
    db.schema.alterTable('simulations').addColumn('reply_latencies', 'text'),
  ]),
};
