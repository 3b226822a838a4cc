import { EventEmitter } from 'node:events';

/** An engine event (`simulation.progress`, `alert.fired`, ...). */
export interface EngineEvent {
  type: string;
  at: string;
  data: Record<string, unknown>;
}

export type EventListener = (event: EngineEvent) => void;

/** The engine's event bus: the UI (over IPC or SSE) and the notifiers subscribe to it. */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit(type: string, data: Record<string, unknown>): void {
    this.emitter.emit('event', { type, at: new Date().toISOString(), data } satisfies EngineEvent);
  }

  subscribe(listener: EventListener): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
