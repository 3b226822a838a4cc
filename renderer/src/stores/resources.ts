import type { InputOf, OperationName, OutputOf } from '../client';
import { create } from 'zustand';
import type { ApiError } from '../client';
import { client, wsInput } from './session';

/** The items a list operation answers under `key`. */
type ItemOf<
  N extends OperationName,
  K extends keyof OutputOf<N>,
> = OutputOf<N>[K] extends readonly (infer T)[] ? T : never;
/** List answers carry a total one way or another (paged lists, or the items themselves). */
interface Totals {
  pagination?: { total: number };
  total?: number;
}

interface ResourceState<T> {
  items: T[];
  total: number;
  loading: boolean;
  error: ApiError | null;
  loaded: boolean;
  load: (query?: Record<string, unknown>) => Promise<void>;
}

/**
 * A store for one domain's list: the operation that lists it, the key its items are under in the
 * answer (typed from the catalogue), and whether it is a workspace resource.
 */
function resourceStore<N extends OperationName, K extends keyof OutputOf<N> & string>(
  operation: N,
  key: K,
  workspaceScoped: boolean,
) {
  return create<ResourceState<ItemOf<N, K>>>((set) => ({
    items: [],
    total: 0,
    loading: false,
    error: null,
    loaded: false,
    async load(query = {}) {
      set({ loading: true });
      try {
        // The query is the list's paging and filters: each screen passes what its list takes.
        const input = (workspaceScoped ? wsInput(query) : query) as InputOf<N>;
        const data = await (client().invoke as (n: N, i: InputOf<N>) => Promise<OutputOf<N>>)(
          operation,
          input,
        );
        const items = (data[key] ?? []) as ItemOf<N, K>[];
        const totals = data as Totals;
        set({
          items,
          total: totals.pagination?.total ?? totals.total ?? items.length,
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

export const useAgents = resourceStore('agents.list', 'agents', false);
export const useTools = resourceStore('tools.list', 'tools', false);
export const usePersonas = resourceStore('personas.list', 'personas', true);
export const useScenarios = resourceStore('scenarios.list', 'scenarios', true);
export const useScorecards = resourceStore('scorecards.list', 'scorecards', true);
export const useSchedules = resourceStore('schedules.list', 'schedules', true);
export const useExecutions = resourceStore('executions.list', 'executions', true);
export const useAlerts = resourceStore('alerts.list', 'alerts', false);
