import type { TestProject } from 'vitest/node';
import { startPostgres } from '../helpers/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set when the run is on PostgreSQL: the admin URL of the cluster the run started. */
    postgresAdminUrl: string | null;
  }
}

/**
 * With CALLBENCH_TEST_STORE=postgres the whole suite runs on PostgreSQL: one throwaway cluster for
 * the run, a database per test server in it (test/helpers/server.ts).
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (process.env.CALLBENCH_TEST_STORE !== 'postgres') {
    project.provide('postgresAdminUrl', null);
    return undefined;
  }
  const pg = await startPostgres();
  project.provide('postgresAdminUrl', pg.url);
  return () => pg.stop();
}
