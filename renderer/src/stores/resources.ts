import type { OperationName } from '../client';
import { create } from 'zustand';
import type { ApiError } from '../client';
import { client, wsInput } from './session';

/** What a list operation answers: its items under a key, and a total. */
type ListAnswer = Record<string, unknown> & { pagination?: { total: number }; total?: number };

interface ResourceState<T> {
  items: T[];
  total: number;
  loading: boolean;
  error: ApiError | null;
  loaded: boolean;
  load: (query?: Record<string, unknown>) => Promise<void>;
}

/**
 * A store for one domain's list: the operation that lists it, where the items are in its answer,
 * and whether it is a workspace resource. Each domain gets its own store from this.
 */
function resourceStore<T>(operation: OperationName, key: string, workspaceScoped: boolean) {
  return create<ResourceState<T>>((set) => ({
    items: [],
    total: 0,
    loading: false,
    error: null,
    loaded: false,
    async load(query = {}) {
      set({ loading: true });
      try {
        // One store serves many list operations: their answers are read by the key they list under.
        const data = (await client().invoke(
          operation,
          workspaceScoped ? wsInput(query) : query,
        )) as unknown as ListAnswer;
        const items = (data[key] ?? []) as T[];
        set({
          items,
          total: data.pagination?.total ?? data.total ?? items.length,
          loading: false,
          error: null,
          loaded: true,
        });
      } catch (err) {
        set({ loading: false, error: err as ApiError, loaded: true });
      }
    },
  }));
}

/**
 * The loose shape screens still read answers as (see eslint.config.js: typing each screen from
 * OperationOutput is the remaining step; the client itself is typed).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export const useAgents = resourceStore<Json>('agents.list', 'agents', false);
export const useTools = resourceStore<Json>('tools.list', 'tools', false);
export const usePersonas = resourceStore<Json>('personas.list', 'personas', true);
export const useScenarios = resourceStore<Json>('scenarios.list', 'scenarios', true);
export const useScorecards = resourceStore<Json>('scorecards.list', 'scorecards', true);
export const useSchedules = resourceStore<Json>('schedules.list', 'schedules', true);
export const useExecutions = resourceStore<Json>('executions.list', 'executions', true);
export const useAlerts = resourceStore<Json>('alerts.list', 'alerts', false);
