import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * What each simulation tested: its run number within its scenario × persona × agent group, the
 * hashes of the scenario and scorecard as run, and the agent's configuration (JSON); an execution
 * shows the hashes of its simulations. Rows made before this stay null: never invented.
 */
export const m012RunIdentity: Migration = {
  version: 12,
  name: 'run identity',
  ...forBothDialects((db) => [
    db.schema.alterTable('simulations').addColumn('run', 'integer'),
    db.schema.alterTable('simulations').addColumn('scenario_hash', 'text'),
    db.schema.alterTable('simulations').addColumn('scorecard_hash', 'text'),
    db.schema.alterTable('simulations').addColumn('agent_config', 'text'),
    db.schema.alterTable('executions').addColumn('scenario_hash', 'text'),
    db.schema.alterTable('executions').addColumn('scorecard_hash', 'text'),
    db.schema.alterTable('executions').addColumn('agent_config_hashes', 'text'),
  ]),
};
