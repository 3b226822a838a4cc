import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type Dialect,
} from 'kysely';
import type { MigrationDialect } from './migration.js';

/*
 * A migration's DDL written once, with Kysely's schema builder, and compiled into each database's
 * text. The texts are what the stores run and checksum, so they must come out byte for byte the
 * same on every build: the compilers are offline (a dummy driver, never a connection) and the text
 * is the compiled statements only, in the order written.
 */

/** A schema builder that compiles for one database and never connects. */
function offline(dialect: MigrationDialect): Kysely<object> {
  const sqlite = dialect === 'sqlite';
  const made: Dialect = {
    createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) =>
      sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db),
    createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
  };
  return new Kysely<object>({ dialect: made });
}

/** Statements to run in order, as one text (SQLite runs one ALTER per column, so there are many). */
const textOf = (statements: Compilable[]): string =>
  statements.map((s) => `${s.compile().sql};\n`).join('');

/** The SQLite and PostgreSQL texts of the statements `build` writes once. */
export function forBothDialects(
  build: (db: Kysely<object>) => Compilable[],
): Record<MigrationDialect, string> {
  return { sqlite: textOf(build(offline('sqlite'))), postgres: textOf(build(offline('postgres'))) };
}
