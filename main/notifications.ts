import type { EngineEvent } from '../src/events.js';

export interface NotificationLike {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
}

export type NotificationFactory = (options: { title: string; body: string }) => NotificationLike;

/**
 * The engine's `notification` events (alerts firing and resolving, test notifications) as OS
 * notifications; a click brings the app forward on that alert.
 */
export function notifyFromEvents(
  subscribe: (listener: (e: EngineEvent) => void) => () => void,
  create: NotificationFactory,
  focusAlert: (alertId: string | null) => void,
) {
  return subscribe((e) => {
    if (e.type !== 'notification') return;
    const n = create({
      title: typeof e.data.title === 'string' ? e.data.title : 'Callbench',
      body: typeof e.data.body === 'string' ? e.data.body : '',
    });
    n.on('click', () => focusAlert(typeof e.data.alertId === 'string' ? e.data.alertId : null));
    n.show();
  });
}
