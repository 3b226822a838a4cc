import { blockedBy } from '../net/guard.js';
import { outbound } from '../net/outbound.js';
import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { EventBus } from '../events.js';
import type { Delivery } from '../store/alert-events.js';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
  allowInsecure?: boolean;
}

/** Where an alert's notifications go, with secrets in clear (for sending only). */
export interface Channels {
  email?: string[];
  slack?: { channel: string; webhookUrl: string };
  webhook?: { url: string; secret?: string };
  os?: boolean;
}

export interface Notification {
  alertId: string;
  subject: string;
  /** Plain text for e-mail. */
  text: string;
  /** Chat-formatted text (Slack mrkdwn). */
  chat: string;
  /** The facts, for the generic webhook's JSON body. */
  data: Record<string, unknown>;
}

export interface NotifyDeps {
  smtp(): Promise<SmtpSettings | null>;
  events: EventBus;
  attempts: number;
  retryBaseMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tries a delivery a bounded number of times with exponential backoff; the last error is kept. */
async function withRetries(
  channel: string,
  deps: NotifyDeps,
  send: () => Promise<void>,
): Promise<Delivery> {
  let error = '';
  for (let attempt = 1; attempt <= deps.attempts; attempt++) {
    try {
      await send();
      return { channel, delivered: true, error: null };
    } catch (err) {
      error = (err as Error).message;
      // An address the server may not reach stays so: asking again would change nothing.
      if (err instanceof Permanent || blockedBy(err)) break;
      if (attempt < deps.attempts) await sleep(deps.retryBaseMs * 2 ** (attempt - 1));
    }
  }
  return { channel, delivered: false, error };
}

/** A failure no retry can fix (nothing configured). */
class Permanent extends Error {}

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const res = await outbound.post(url, body, {
    headers: { 'content-type': 'application/json', ...headers },
    timeout: 10_000,
    validateStatus: () => true,
    maxRedirects: 0,
  });
  if (res.status >= 300) throw new Error(`the receiver answered ${res.status}`);
}

/**
 * Sends a notification to every channel of an alert, independently: a failing channel never stops
 * the others. Answers what happened on each.
 */
export async function deliver(
  channels: Channels,
  n: Notification,
  deps: NotifyDeps,
): Promise<Delivery[]> {
  const jobs: Promise<Delivery>[] = [];
  if (channels.os !== false) {
    // The desktop shows it with Electron's Notification; `serve` prints it to its log. The
    // delivery says which, so a console line is never reported as a notification on screen.
    const where = deps.events.hasDesktop() ? 'desktop' : 'console';
    deps.events.emit('notification', { alertId: n.alertId, title: n.subject, body: n.text });
    jobs.push(Promise.resolve({ channel: 'os', delivered: true, error: null, where }));
  }
  if (channels.email?.length) {
    jobs.push(
      withRetries('email', deps, async () => {
        const smtp = await deps.smtp();
        if (!smtp)
          throw new Permanent(
            'SMTP is not configured: set it with PATCH /v1/settings {"smtp": {...}}',
          );
        const tlsRequired = Boolean(smtp.password) && !smtp.secure && !smtp.allowInsecure;
        const transport = nodemailer.createTransport({
          host: smtp.host,
          port: smtp.port,
          secure: smtp.secure,
          // A password travels only over TLS: without implicit TLS, STARTTLS is required.
          requireTLS: tlsRequired,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
          ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
        });
        try {
          await transport.sendMail({
            from: smtp.from,
            to: channels.email!.join(', '),
            subject: n.subject,
            text: n.text,
          });
        } catch (err) {
          const e = err as { code?: string; message: string };
          if (tlsRequired && (e.code === 'ETLS' || /TLS|certificate/i.test(e.message)))
            throw new Error(
              `TLS could not be set up with ${smtp.host} (${e.message}); the password is sent only over TLS: fix the server's TLS, or set smtp.allowInsecure to send it in plaintext`,
              { cause: err },
            );
          throw err;
        } finally {
          transport.close();
        }
      }),
    );
  }
  if (channels.slack) {
    const { webhookUrl, channel } = channels.slack;
    jobs.push(
      withRetries('slack', deps, () => post(webhookUrl, JSON.stringify({ channel, text: n.chat }))),
    );
  }
  if (channels.webhook) {
    const { url, secret } = channels.webhook;
    jobs.push(
      withRetries('webhook', deps, () => {
        const body = JSON.stringify(n.data);
        const timestamp = String(Math.floor(Date.now() / 1000));
        const headers: Record<string, string> = secret
          ? {
              'x-callbench-timestamp': timestamp,
              'x-callbench-signature': `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
            }
          : {};
        return post(url, body, headers);
      }),
    );
  }
  return Promise.all(jobs);
}
