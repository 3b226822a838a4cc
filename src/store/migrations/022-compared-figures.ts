import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * Each simulation's outcome as a comparison reads it (a small JSON array: each metric's name,
 * score and pass, and an audio call's voice figures; ../compared-figures.ts), written when the
 * simulation ends: a comparison reads it without parsing the results and the audio summary. Rows
 * made before this stay null, and their readers fall back to those.
 */
export const m022ComparedFigures: Migration = {
  version: 22,
  name: 'compared figures',
  ...forBothDialects((db) => [
    db.schema.alterTable('simulations').addColumn('compared_figures', 'text'),
  ]),
};
