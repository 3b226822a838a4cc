import { useEffect } from 'react';
import { create } from 'zustand';
import type { EngineEventMessage } from '../../../preload/api';
import { useSession } from './session';

/** The engine's live events, for screens that follow progress; the last ones are kept. */
interface EventState {
  last: EngineEventMessage[];
  /** Bumped on every event, so that screens can refresh on what concerns them. */
  tick: number;
  push(e: EngineEventMessage): void;
}

export const useEvents = create<EventState>((set) => ({
  last: [],
  tick: 0,
  push: (e) => set((s) => ({ last: [e, ...s.last].slice(0, 50), tick: s.tick + 1 })),
}));

/** Subscribes once to the engine's events for the whole app. */
export function useAlertEvents(): void {
  const client = useSession((s) => s.client);
  useEffect(() => client?.subscribe((e) => {
    // A click on an OS notification brings the app forward on the alert.
    if (e.type === 'app.navigate') useSession.getState().navigate(String(e.data.path));
    useEvents.getState().push(e);
  }), [client]);
}

/** Calls `onEvent` for each engine event whose type starts with one of `prefixes`. */
export function useEngineEvents(prefixes: string[], onEvent: (e: EngineEventMessage) => void): void {
  const tick = useEvents((s) => s.tick);
  useEffect(() => {
    const e = useEvents.getState().last[0];
    if (e && prefixes.some((p) => e.type.startsWith(p))) onEvent(e);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tick]);
}
