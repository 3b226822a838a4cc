/** One schema change: its number, its name, and the SQL that makes it. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
