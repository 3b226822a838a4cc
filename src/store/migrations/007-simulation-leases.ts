import type { Migration } from './migration.js';

/**
 * Who runs a simulation, and until when that holds unless renewed: servers sharing a database
 * take a dead one's simulations back once its lease lapses, and only the lease's holder may
 * record the result.
 */
export const m007SimulationLeases: Migration = {
  version: 7,
  name: 'simulation leases',
  sqlite: `
ALTER TABLE simulations ADD COLUMN lease_owner TEXT;
ALTER TABLE simulations ADD COLUMN lease_until_ms INTEGER;
`,
  postgres: `
ALTER TABLE simulations ADD COLUMN lease_owner TEXT;
ALTER TABLE simulations ADD COLUMN lease_until_ms BIGINT;
`,
};
