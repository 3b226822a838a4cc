import type { Compilable, Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

type Table = ReturnType<Kysely<object>['schema']['createTable']>;

/** PostgreSQL has no rowid: the tables say one (like 013's and 016's), the order jobs are taken in. */
const withRowid = (table: Table, onPostgres: boolean): Table =>
  onPostgres
    ? table.addColumn('rowid', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    : table;

/** One evaluation per call (its primary key): a call is never scored twice into two rows. */
function evaluations(db: Kysely<object>, onPostgres: boolean): Table {
  const table = db.schema
    .createTable('call_evaluations')
    .addColumn('call_id', 'text', (c) => c.primaryKey().references('calls.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('scorecard_id', 'text', (c) => c.notNull())
    .addColumn('score', 'real')
    .addColumn('passed', 'integer')
    .addColumn('results', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('evaluated_at', 'text', (c) => c.notNull())
    .addColumn('call_started_at', 'text')
    .addColumn('agent_version', 'integer');
  return withRowid(table, onPostgres);
}

/**
 * The evaluation queue: one job per call, claimed under a lease (owner, expiry, attempts) like a
 * simulation, so that a dead worker's jobs go to another and a job ends once. The call is not a
 * foreign key: checking one per queued call would cost an import more as its history grows
 * (calls go with their agent, and so do its jobs; a job whose call is gone fails).
 */
function jobs(db: Kysely<object>, onPostgres: boolean): Table {
  const table = db.schema
    .createTable('evaluation_jobs')
    .addColumn('call_id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', onPostgres ? 'bigint' : 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull());
  return withRowid(table, onPostgres);
}

/**
 * Production monitoring: an agent's monitoring settings (JSON, null: never set) and when they were
 * last turned on, the evaluations of its imported calls, and the queue of calls to score.
 */
function statements(onPostgres: boolean) {
  return (db: Kysely<object>): Compilable[] => [
    db.schema.alterTable('agents').addColumn('monitoring', 'text'),
    db.schema.alterTable('agents').addColumn('monitoring_enabled_at', 'text'),
    evaluations(db, onPostgres),
    db.schema
      .createIndex('call_evaluations_by_agent_time')
      .on('call_evaluations')
      .columns(['agent_id', 'call_started_at']),
    db.schema
      .createIndex('call_evaluations_by_scorecard')
      .on('call_evaluations')
      .columns(['workspace_id', 'scorecard_id']),
    jobs(db, onPostgres),
    db.schema.createIndex('evaluation_jobs_by_status').on('evaluation_jobs').column('status'),
  ];
}

export const m020ProductionMonitoring: Migration = {
  version: 20,
  name: 'production monitoring',
  // One builder, each database's own text: only PostgreSQL needs the rowid said.
  sqlite: forBothDialects(statements(false)).sqlite,
  postgres: forBothDialects(statements(true)).postgres,
};
