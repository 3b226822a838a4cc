import type { Clock } from '../clock.js';
import type { AlertCondition } from '../domain/alerts.js';
import { isoNow } from '../clock.js';
import type { EventBus } from '../events.js';
import { isSealed, type Sealed, type SecretBox } from '../kernel/secret-box.js';
import type { Delivery } from '../store/alert-events.js';
import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/index.js';
import { deliver, type Channels, type SmtpSettings } from '../notify/channels.js';
import { composeNotification, type AlertFacts } from '../notify/message.js';
import { productionSubject } from './production-subject.js';

export interface AlertServiceDeps {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  events: EventBus;
  /** Delivery retries: attempts in all, and the first delay (doubling). */
  deliveryAttempts?: number;
  deliveryRetryBaseMs?: number;
}

export type Condition = AlertCondition;

/** The SMTP settings with the password opened, for sending only. */
export async function openSmtp(store: Store, secrets: SecretBox): Promise<SmtpSettings | null> {
  const smtp = await store.settings.get<SmtpSettings & { password?: unknown }>('smtp');
  if (!smtp) return null;
  return { ...smtp, password: isSealed(smtp.password) ? secrets.open(smtp.password) : undefined };
}

export function createAlertService(deps: AlertServiceDeps) {
  const { store, secrets, clock, events } = deps;
  const notifyDeps = {
    smtp: () => openSmtp(store, secrets),
    events,
    attempts: deps.deliveryAttempts ?? 3,
    retryBaseMs: deps.deliveryRetryBaseMs ?? 1_000,
  };

  function channelsOf(alert: StoredAlert): Channels {
    const n = alert.definition.notifications ?? {};
    const open = (v: string | Sealed): string => (isSealed(v) ? secrets.open(v) : v);
    return {
      email: n.email,
      slack: n.slack && { channel: n.slack.channel, webhookUrl: open(n.slack.webhookUrl) },
      webhook: n.webhook && {
        url: n.webhook.url,
        secret: n.webhook.secret === undefined ? undefined : open(n.webhook.secret),
      },
      os: n.os,
    };
  }

  /** Describes what an alert watches, in words, for its notifications. */
  async function subjectOf(c: Condition): Promise<string> {
    switch (c.type) {
      case 'tool_performance': {
        const tool = c.toolId ? await store.tools.find(c.toolId) : undefined;
        return `${c.metric} of tool ${tool?.name ?? c.toolId}`;
      }
      case 'agent_score':
        return `the average simulation score of agent ${(await store.agents.get(c.agentId ?? ''))?.name ?? c.agentId}`;
      case 'scenario_failure':
        return `the pass rate of scenario ${c.scenarioId}`;
      case 'agent_regression':
        return `the drift suite of agent ${(await store.agents.get(c.agentId ?? ''))?.name ?? c.agentId}`;
      case 'production_pass_rate':
      case 'production_trend':
        return productionSubject(c, (await store.agents.get(c.agentId ?? ''))?.name);
      default:
        return `configuration changes of agent ${(await store.agents.get(c.agentId ?? ''))?.name ?? c.agentId} on its provider`;
    }
  }

  async function facts(
    alert: StoredAlert,
    state: AlertFacts['state'],
    value: number | null,
    detail?: AlertFacts['detail'],
  ): Promise<AlertFacts> {
    const c = alert.definition.condition;
    return {
      alertId: alert.id,
      name: alert.definition.name,
      severity: alert.definition.severity ?? 'medium',
      state,
      subject: await subjectOf(c),
      metric: c.metric ?? null,
      operator: c.operator ?? null,
      value,
      threshold: c.threshold ?? null,
      timeWindow: c.timeWindow ?? null,
      at: isoNow(clock),
      ...(detail ? { detail } : {}),
    };
  }

  return {
    channelsOf,
    /** Sends a notification of a state change (or a test) to every channel of the alert. */
    async notify(
      alert: StoredAlert,
      state: AlertFacts['state'],
      value: number | null,
      detail?: AlertFacts['detail'],
    ): Promise<Delivery[]> {
      return deliver(
        channelsOf(alert),
        composeNotification(await facts(alert, state, value, detail)),
        notifyDeps,
      );
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
