import type { Sealed } from '../kernel/secret-box.js';

/** What an alert watches. The operations validate it (zod); this is its stored form. */
export interface AlertCondition {
  type: string;
  toolId?: string;
  agentId?: string;
  scenarioId?: string;
  metric?: string;
  operator?: string;
  threshold?: number;
  timeWindow?: string;
  minSamples?: number;
}

/** Where an alert notifies, as stored: the Slack URL and the webhook secret sealed. */
export interface StoredNotifications {
  email?: string[];
  slack?: { channel: string; webhookUrl: string | Sealed };
  webhook?: { url: string; secret?: string | Sealed };
  os?: boolean;
}

/** The alert definition (name, condition, severity, notifications, cooldown) with secrets sealed. */
export interface AlertDefinition {
  name: string;
  condition: AlertCondition;
  severity?: string;
  notifications?: StoredNotifications;
  cooldown?: string;
}
