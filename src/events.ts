import { EventEmitter } from 'node:events';

/** Every engine event and its data: the one definition emitters and listeners are checked against. */
export interface EngineEventMap {
  'simulation.progress': { simulationId: string; executionId: string; status: string };
  'simulation.finished': { simulationId: string; executionId: string; status: string };
  'execution.cancelled': { executionId: string };
  /** An experiment ended: compared (completed), failed or cancelled. */
  'experiment.finished': { experimentId: string; status: string };
  /** Tools called in the last quarter second (one event for many calls: analytics screens reload). */
  'tools.called': { toolIds: string[] };
  'schedule.ran': { scheduleId: string; outcome: string; executionId: string | null };
  'sync.started': { agentId: string };
  'sync.finished': { agentId: string; ok: boolean; error?: string };
  'agent.config_changed': { agentId: string; changedPaths: string[] };
  /** An agent's drift suite run ended (compared with the previous version's run, when there was one). */
  'regression.suite_finished': {
    agentId: string;
    version: number;
    runId: string;
    comparisonId: string | null;
    verdict: string | null;
  };
  /** A monitored call's evaluation was stored (production alerts measure again soon). */
  'call.evaluated': { callId: string; agentId: string };
  notification: { alertId: string; title: string; body: string };
  'alert.firing': { alertId: string; name: string; value: number | null };
  'alert.resolved': { alertId: string; name: string; value: number | null };
  /** Settings that changed (their top-level keys): every instance applies what it runs. */
  'settings.changed': { keys: string[] };
}

export type EngineEventType = keyof EngineEventMap;

/** An engine event as subscribers receive it: narrowing on `type` gives its data's shape. */
export type EngineEvent = {
  [K in EngineEventType]: { type: K; at: string; data: EngineEventMap[K] };
}[EngineEventType];

export type EventListener = (event: EngineEvent) => void;

/** The engine's event bus: the UI (over IPC or SSE) and the notifiers subscribe to it. */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends EngineEventType>(type: K, data: EngineEventMap[K]): void {
    this.emitter.emit('event', { type, at: new Date().toISOString(), data });
  }

  /**
   * Hands subscribers an event built elsewhere (another server's, carried by the team event relay)
   * as it is: its `at` is when it happened there, and subscribers get this very object.
   */
  deliver(event: EngineEvent): void {
    this.emitter.emit('event', event);
  }

  subscribe(listener: EventListener): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Desktop sessions showing `notification` events as OS notifications right now. */
  private desktops = 0;

  /**
   * A subscriber that shows notifications on a desktop (the Electron host): while one is
   * subscribed, an OS notification is said to reach the desktop; otherwise only the engine's
   * console (serve prints it), and "Send test" says so rather than "delivered".
   */
  subscribeDesktop(listener: EventListener): () => void {
    const off = this.subscribe(listener);
    this.desktops++;
    let subscribed = true;
    return () => {
      if (subscribed) this.desktops--;
      subscribed = false;
      off();
    };
  }

  hasDesktop(): boolean {
    return this.desktops > 0;
  }
}
