import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeMail, startReceiver, startSmtp } from '../helpers/receivers.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

describe('alert notifications: POST /v1/alerts/{id}/test and /v1/settings', () => {
  let s: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let toolId: string;
  // A fresh engine and mail server per test: SMTP settings are engine-wide state.
  beforeEach(async () => {
    [s, smtp] = await Promise.all([startServer({ deliveryRetryBaseMs: 5 }), startSmtp()]);
    toolId = (
      await s.call('POST', '/v1/tools', {
        name: 'crm',
        type: 'api',
        config: { url: 'http://127.0.0.1:1/x' },
      })
    ).body.id;
  });
  afterEach(async () => {
    await s.stop();
    await smtp.stop();
  });

  const smtpSettings = () => ({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    user: 'mailer',
    password: 'smtp-pass-9876',
    from: 'Callbench <alerts@example.com>',
    // The test server speaks plaintext only: sending a password there must be asked for.
    allowInsecure: true,
  });

  const alert = async (notifications: Record<string, unknown>) =>
    (
      await s.call('POST', '/v1/alerts', {
        name: 'CRM slow',
        severity: 'high',
        notifications,
        condition: {
          type: 'tool_performance',
          toolId,
          metric: 'p95_response_time',
          operator: 'greater_than',
          threshold: 800,
          timeWindow: '15m',
        },
      })
    ).body;

  it('an e-mail channel without SMTP settings is reported as not delivered, with the reason', async () => {
    const a = await alert({ email: ['qa@example.com'], os: false });
    const res = await s.call('POST', `/v1/alerts/${a.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      {
        channel: 'email',
        delivered: false,
        error: expect.stringContaining('SMTP is not configured'),
      },
    ]);
  });

  it('stores SMTP settings with the password encrypted and masked; validates them', async () => {
    const bad = await s.call('PATCH', '/v1/settings', { smtp: { port: 25 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'smtp.host',
      'smtp.from',
    ]);
    const res = await s.call('PATCH', '/v1/settings', { smtp: smtpSettings() });
    expect(res.status).toBe(200);
    expect(res.body.smtp).toEqual({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: 'mailer',
      password: '****9876',
      from: 'Callbench <alerts@example.com>',
      allowInsecure: true,
    });
    expect(JSON.stringify(await storedRows(s.stored, 'SELECT value FROM settings'))).not.toContain(
      'smtp-pass-9876',
    );
    // Sending the mask back keeps the password.
    await s.call('PATCH', '/v1/settings', { smtp: { password: '****9876', secure: false } });
    expect((await s.call('GET', '/v1/settings')).body.smtp.password).toBe('****9876');
  });

  it('never sends an SMTP password without TLS unless allowInsecure is set', async () => {
    await s.call('PATCH', '/v1/settings', { smtp: { ...smtpSettings(), allowInsecure: false } });
    expect((await s.call('GET', '/v1/settings')).body.smtp.allowInsecure).toBe(false);
    const a = await alert({ email: ['qa@example.com'], os: false });
    const res = await s.call('POST', `/v1/alerts/${a.id}/test`);
    expect(res.body.results).toEqual([
      { channel: 'email', delivered: false, error: expect.stringMatching(/TLS/) },
    ]);
    expect(smtp.auths).toEqual([]);
    expect(smtp.mails).toEqual([]);
  });

  it('sends to every channel: e-mail over SMTP, Slack-style chat, a signed webhook, and the OS', async () => {
    expect((await s.call('PATCH', '/v1/settings', { smtp: smtpSettings() })).status).toBe(200);
    const [slack, hook] = await Promise.all([startReceiver(), startReceiver()]);
    const events: unknown[] = [];
    const off = s.engine.events.subscribe((e) => e.type === 'notification' && events.push(e.data));
    const a = await alert({
      email: ['qa@example.com', 'lead@example.com'],
      slack: { channel: '#qa-alerts', webhookUrl: slack.url },
      webhook: { url: hook.url, secret: 'whsec-signing-1234' },
    });
    const res = await s.call('POST', `/v1/alerts/${a.id}/test`);
    off();
    expect(res.body.results).toEqual([
      // No desktop session: the OS notification went to the engine's console, and says so.
      { channel: 'os', delivered: true, error: null, where: 'console' },
      { channel: 'email', delivered: true, error: null },
      { channel: 'slack', delivered: true, error: null },
      { channel: 'webhook', delivered: true, error: null },
    ]);
    const mail = smtp.mails.at(-1)!;
    expect(mail).toMatchObject({
      from: 'alerts@example.com',
      to: ['qa@example.com', 'lead@example.com'],
      user: 'mailer',
    });
    const { subject, text } = decodeMail(mail.raw);
    expect(subject).toBe('[Callbench] Test notification for "CRM slow"');
    expect(text).toContain('p95_response_time of tool crm');
    expect(text).not.toMatch(/https?:\/\//);

    const chat = JSON.parse(slack.received[0]!.body);
    expect(chat).toEqual({ channel: '#qa-alerts', text: expect.stringContaining('*CRM slow*') });

    const { headers, body } = hook.received[0]!;
    const expected = createHmac('sha256', 'whsec-signing-1234')
      .update(`${String(headers['x-callbench-timestamp'])}.${body}`)
      .digest('hex');
    expect(headers['x-callbench-signature']).toBe(`sha256=${expected}`);
    expect(JSON.parse(body)).toMatchObject({
      event: 'alert.test',
      alertId: a.id,
      name: 'CRM slow',
      severity: 'high',
      metric: 'p95_response_time',
      threshold: 800,
    });
    expect(events).toEqual([
      expect.objectContaining({
        alertId: a.id,
        title: '[Callbench] Test notification for "CRM slow"',
      }),
    ]);
    await Promise.all([slack.stop(), hook.stop()]);
  });

  it('retries a receiver that fails twice, and a failing channel never stops the others', async () => {
    const [flaky, dead] = await Promise.all([startReceiver(2), startReceiver(99)]);
    const a = await alert({
      slack: { channel: '#x', webhookUrl: flaky.url },
      webhook: { url: dead.url },
      os: false,
    });
    const res = await s.call('POST', `/v1/alerts/${a.id}/test`);
    expect(res.body.results).toEqual([
      { channel: 'slack', delivered: true, error: null },
      { channel: 'webhook', delivered: false, error: 'the receiver answered 503' },
    ]);
    expect(flaky.attempts()).toBe(3);
    expect(dead.attempts()).toBe(3);
    await Promise.all([flaky.stop(), dead.stop()]);
  });

  it('an OS notification says where it went: the desktop while one shows them, else the console', async () => {
    const a = await alert({ os: true });
    const shown: unknown[] = [];
    const off = s.engine.events.subscribeDesktop((e) => e.type === 'notification' && shown.push(e));
    const onDesktop = await s.call('POST', `/v1/alerts/${a.id}/test`);
    off();
    expect(onDesktop.body.results).toEqual([
      { channel: 'os', delivered: true, error: null, where: 'desktop' },
    ]);
    expect(shown).toHaveLength(1);
    const headless = await s.call('POST', `/v1/alerts/${a.id}/test`);
    expect(headless.body.results).toEqual([
      { channel: 'os', delivered: true, error: null, where: 'console' },
    ]);
  });

  it('a 404 for an unknown alert', async () => {
    expect((await s.call('POST', '/v1/alerts/alr_nope/test')).status).toBe(404);
  });
});
