import type { StoreContext } from './sql/query.js';

/**
 * Which workspaces an agent is shared with. Agents are engine-wide; a workspace token runs only
 * the agents shared with its own workspace (API keys run them all).
 */
export function agentWorkspaces(ctx: StoreContext) {
  return {
    /** The ids of the workspaces the agent is shared with, in id order. */
    async workspacesOf(agentId: string): Promise<string[]> {
      const rows = await ctx.db
        .selectFrom('agent_workspaces')
        .select('workspace_id')
        .where('agent_id', '=', agentId)
        .orderBy('workspace_id')
        .execute();
      return rows.map((r) => r.workspace_id);
    },
    /** Shares the agent with exactly these (existing) workspaces. */
    async setWorkspaces(agentId: string, workspaceIds: string[]): Promise<void> {
      await ctx.atomic(async (db) => {
        await db.deleteFrom('agent_workspaces').where('agent_id', '=', agentId).execute();
        if (workspaceIds.length)
          await db
            .insertInto('agent_workspaces')
            .values(workspaceIds.map((workspace_id) => ({ agent_id: agentId, workspace_id })))
            .execute();
      });
    },
    /** Which of these agents are shared with the workspace. */
    async sharedWith(workspaceId: string, agentIds: string[]): Promise<Set<string>> {
      if (agentIds.length === 0) return new Set();
      const rows = await ctx.db
        .selectFrom('agent_workspaces')
        .select('agent_id')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', 'in', agentIds)
        .execute();
      return new Set(rows.map((r) => r.agent_id));
    },
  };
}
