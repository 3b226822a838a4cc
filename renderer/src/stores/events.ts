import { useEffect, useRef } from 'react';
import type { AppEvent } from '../client';
import { useSession } from './session';

type Listener = (e: AppEvent) => void;
const listeners = new Set<Listener>();

/** Subscribes once to the engine's events for the whole app, and hands each to the screens listening. */
export function useEngineEventStream(): void {
  const client = useSession((s) => s.client);
  useEffect(
    () =>
      client?.subscribe((e) => {
        // A click on an OS notification brings the app forward on the alert.
        if (e.type === 'app.navigate') useSession.getState().navigate(e.data.path);
        for (const l of listeners) l(e);
      }),
    [client],
  );
}

/**
 * Calls `refresh` when an engine event `matches`, at most once per `intervalMs`: an execution of
 * a thousand simulations finishing is a few reloads, not a thousand. No event is missed: one that
 * arrives while waiting makes the reload that ends the wait.
 */
/** An event that changes an execution: one of its simulations moved, or it was cancelled (perhaps elsewhere). */
export const changesExecution = (e: AppEvent, executionId: string | undefined): boolean =>
  (e.type === 'simulation.progress' ||
    e.type === 'simulation.finished' ||
    e.type === 'execution.cancelled') &&
  e.data.executionId === executionId;

export function useEngineRefresh(
  matches: (e: AppEvent) => boolean,
  refresh: () => void,
  intervalMs = 500,
): void {
  const latest = useRef({ matches, refresh });
  useEffect(() => {
    latest.current = { matches, refresh };
  });
  useEffect(() => {
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const run = () => {
      timer = null;
      last = Date.now();
      latest.current.refresh();
    };
    const listener: Listener = (e) => {
      if (!latest.current.matches(e) || timer) return;
      const wait = last + intervalMs - Date.now();
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (timer) clearTimeout(timer);
    };
  }, [intervalMs]);
}
