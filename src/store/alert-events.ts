import { sql } from 'kysely';
import { newId } from '../ids.js';
import { fromJson, toJson } from './db.js';
import type { StoreContext } from './sql/query.js';

export interface Delivery {
  channel: string;
  delivered: boolean;
  error: string | null;
  /**
   * OS notifications: shown on a desktop session, or, with none (serve, browser mode), only
   * written to the engine's console. Absent for other channels and older events.
   */
  where?: 'desktop' | 'console';
}

export interface AlertEvent {
  id: string;
  state: 'firing' | 'resolved';
  value: number | null;
  threshold: number | null;
  timeWindow: string | null;
  at: string;
  deliveries: Delivery[];
}

/** One row per state change of an alert, with what each channel did with its notification. */
export function createAlertEventStore(ctx: StoreContext) {
  return {
    async add(
      alertId: string,
      e: Omit<AlertEvent, 'id' | 'deliveries'>,
      now: number,
    ): Promise<string> {
      const id = newId('evt', now);
      await ctx.db
        .insertInto('alert_events')
        .values({
          id,
          alert_id: alertId,
          state: e.state,
          value: e.value,
          threshold: e.threshold,
          time_window: e.timeWindow,
          at: e.at,
        })
        .execute();
      return id;
    },
    async setDeliveries(id: string, deliveries: Delivery[]): Promise<void> {
      await ctx.db
        .updateTable('alert_events')
        .set({ deliveries: toJson(deliveries) })
        .where('id', '=', id)
        .execute();
    },
    async list(alertId: string): Promise<AlertEvent[]> {
      const { rows } = await sql<{
        id: string;
        state: 'firing' | 'resolved';
        value: number | null;
        threshold: number | null;
        time_window: string | null;
        at: string;
        deliveries: string;
      }>`SELECT id, state, value, threshold, time_window, at, deliveries FROM alert_events
        WHERE alert_id = ${alertId} ORDER BY at DESC, rowid DESC`.execute(ctx.db);
      return rows.map((r) => ({
        id: r.id,
        state: r.state,
        value: r.value,
        threshold: r.threshold,
        timeWindow: r.time_window,
        at: r.at,
        deliveries: fromJson(r.deliveries),
      }));
    },
  };
}
