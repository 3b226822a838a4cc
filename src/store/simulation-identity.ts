import { sql } from 'kysely';
import type { RunIdentity } from '../domain/simulations.js';
import { fromJson, toJson } from './db.js';
import type { StoreContext } from './sql/query.js';

/** The identity fields a simulation records (its run number is fixed when it is queued). */
export type IdentityAsRun = Omit<RunIdentity, 'run'>;

/** The single value every simulation agrees on; null when they differ (no one value ran). */
function agreed(values: (string | null)[]): string | null {
  const found = new Set(values.filter((v): v is string => v !== null));
  return found.size === 1 ? [...found][0]! : null;
}

/**
 * Rewriting what a simulation tested, as it starts: the runner reads the scenario, scorecard and
 * agent again then, and an edit since it was queued is what runs (simulations/identity-at-run.ts).
 */
export function simulationIdentity(ctx: StoreContext) {
  return {
    /**
     * Records a simulation's identity as run, and its execution's hashes again from its
     * simulations' (those that ran or still wait to; one cancelled or skipped before it started
     * tested nothing): a hash they all share, else null (they ran different scenarios, or were
     * scored on different scorecards); every agent configuration hash, in queue order.
     */
    async reidentify(simulationId: string, executionId: string, id: IdentityAsRun): Promise<void> {
      await ctx.atomic(async (db) => {
        // Simulations of one execution starting together on servers sharing PostgreSQL take
        // turns here, so that the last to write has read every other's hashes.
        await ctx.dialect.transactionLock(`executions.identity.${executionId}`).execute(db);
        await db
          .updateTable('simulations')
          .set({
            scenario_hash: id.scenario_hash,
            scorecard_hash: id.scorecard_hash,
            agent_config: id.agent_config === null ? null : toJson(id.agent_config),
          })
          .where('id', '=', simulationId)
          .execute();
        const { rows } = await sql<{
          scenario_hash: string | null;
          scorecard_hash: string | null;
          agent_config: string | null;
        }>`SELECT scenario_hash, scorecard_hash, agent_config FROM simulations
          WHERE execution_id = ${executionId} AND status <> 'skipped'
          AND (started_at IS NOT NULL OR status = 'queued')
          ORDER BY seq`.execute(db);
        const agentHashes = rows.flatMap((r) =>
          r.agent_config === null ? [] : [fromJson<{ hash: string }>(r.agent_config).hash],
        );
        await db
          .updateTable('executions')
          .set({
            scenario_hash: agreed(rows.map((r) => r.scenario_hash)),
            scorecard_hash: agreed(rows.map((r) => r.scorecard_hash)),
            agent_config_hashes: toJson([...new Set(agentHashes)]),
          })
          .where('id', '=', executionId)
          .execute();
      });
    },
  };
}
