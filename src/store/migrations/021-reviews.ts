import type { Compilable, Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * Human reviews (#37): one label per reviewer, target and metric, the unique key making a second
 * label replace the first even when two requests race, and finding a target's newer labels. A
 * target is a call or a simulation (kind and id), so it has no foreign key: a label whose target
 * is gone is simply never joined. The calibration reads a scorecard's metric's labels by
 * (workspace, scorecard, metric), its disagreements latest first.
 */
function statements(onPostgres: boolean) {
  return (db: Kysely<object>): Compilable[] => {
    let table = db.schema
      .createTable('reviews')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) =>
        c.notNull().references('workspaces.id').onDelete('cascade'),
      )
      .addColumn('scorecard_id', 'text', (c) => c.notNull())
      .addColumn('metric_id', 'text', (c) => c.notNull())
      .addColumn('target_kind', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('reviewer_id', 'text', (c) => c.notNull())
      .addColumn('reviewer_name', 'text', (c) => c.notNull())
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('note', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // The judge's verdict on the labelled result as it stood when labelled (1, 0, or null: none
      // usable), with its judge and rubric, and when that result was made: while the result is
      // the same one (`judged_at` still its time), the calibration counts these columns instead
      // of reading the result's JSON again.
      .addColumn('judge_passed', 'integer')
      .addColumn('judge_model', 'text')
      .addColumn('rubric_hash', 'text')
      .addColumn('judged_at', 'text')
      // 1 on the latest label of its target and metric (whoever gave it), 0 on those it outdated:
      // the calibration counts each labelled result once without looking for newer labels.
      .addColumn('is_latest', 'integer', (c) => c.notNull().defaultTo(1))
      .addUniqueConstraint('reviews_one_per_reviewer', [
        'target_kind',
        'target_id',
        'metric_id',
        'reviewer_id',
      ]);
    // PostgreSQL has no rowid: the tables that list by insertion order say one (like 013's).
    if (onPostgres)
      table = table.addColumn('rowid', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity());
    return [
      table,
      db.schema
        .createIndex('reviews_by_metric')
        .on('reviews')
        .columns(['workspace_id', 'scorecard_id', 'metric_id', 'updated_at']),
      db.schema
        .createIndex('reviews_by_workspace')
        .on('reviews')
        .columns(['workspace_id', 'updated_at']),
    ];
  };
}

export const m021Reviews: Migration = {
  version: 21,
  name: 'reviews',
  // One builder, each database's own text: only PostgreSQL needs the rowid said.
  sqlite: forBothDialects(statements(false)).sqlite,
  postgres: forBothDialects(statements(true)).postgres,
};
