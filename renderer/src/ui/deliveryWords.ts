/** What a channel did with a notification, as the alert screens say it. */
export interface DeliveryLike {
  channel: string;
  delivered: boolean;
  error: string | null;
  where?: 'desktop' | 'console';
}

/**
 * In words, never "delivered" for what only reached the engine's console: an OS notification
 * with no desktop session (serve, browser mode) is a line in the engine's output.
 */
export function deliveryWords(d: DeliveryLike, sent = 'delivered'): string {
  if (!d.delivered) return `${d.channel}: failed: ${d.error ?? 'no reason given'}`;
  if (d.channel === 'os' && d.where === 'console')
    return "os: no desktop session: written to the engine's console";
  if (d.channel === 'os' && d.where === 'desktop') return 'os: shown on the desktop';
  return `${d.channel}: ${sent}`;
}
