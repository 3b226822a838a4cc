import { newId } from '../ids.js';
import { fromJson, toJson, type Db } from './db.js';

export interface Delivery {
  channel: string;
  delivered: boolean;
  error: string | null;
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
export function createAlertEventStore(db: Db) {
  return {
    add(alertId: string, e: Omit<AlertEvent, 'id' | 'deliveries'>, now: number): string {
      const id = newId('evt', now);
      db.prepare(
        'INSERT INTO alert_events (id, alert_id, state, value, threshold, time_window, at) VALUES (?,?,?,?,?,?,?)',
      ).run(id, alertId, e.state, e.value, e.threshold, e.timeWindow, e.at);
      return id;
    },
    setDeliveries(id: string, deliveries: Delivery[]): void {
      db.prepare('UPDATE alert_events SET deliveries = ? WHERE id = ?').run(toJson(deliveries), id);
    },
    list(alertId: string): AlertEvent[] {
      return (
        db
          .prepare('SELECT * FROM alert_events WHERE alert_id = ? ORDER BY at DESC, rowid DESC')
          .all(alertId) as {
          id: string;
          state: 'firing' | 'resolved';
          value: number | null;
          threshold: number | null;
          time_window: string | null;
          at: string;
          deliveries: string;
        }[]
      ).map((r) => ({
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
