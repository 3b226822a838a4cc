import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '../helpers/json.js';
import { expect, openApp, shot, startServe, test, type ServeHandle } from './fixtures.js';

const TOKEN = 'sk_live_e2e_secret_7788';

/** A real target on 127.0.0.1 that echoes the credentials it got, in a header and its body. */
async function startEchoTarget(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const auth = String(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo-auth': auth });
    res.end(JSON.stringify({ order: { status: 'shipped' }, youSent: auth }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * Results a tester reads: a tool test's raw answer beside the mapped one (secrets masked), the
 * analytics window picker with its trend, and the schedule editor's preview of the next runs.
 */
test.describe('reading results', () => {
  let serve: ServeHandle;
  let target: { url: string; server: Server };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer: Json = await res.json();
    return answer;
  };

  test.use({ timezoneId: 'Europe/Paris' });
  test.beforeAll(async () => {
    target = await startEchoTarget();
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
    target?.server.close();
  });

  test('the tool test shows the raw answer beside the mapped result, secrets masked', async ({
    page,
  }) => {
    const tool = await api('POST', '/v1/tools', {
      name: 'order_lookup',
      type: 'api',
      config: {
        method: 'GET',
        url: `${target.url}/orders/{orderId}`,
        auth: { type: 'bearer', token: TOKEN },
      },
      parameters: [{ name: 'orderId', type: 'string', required: true }],
      responseMapping: { status: 'order.status' },
    });
    await openApp(page, serve, `tools/${tool.id}`);
    await page.getByLabel('orderId *').fill('A-1001');
    await page.getByRole('button', { name: 'Run test' }).click();
    const raw = page.getByRole('region', { name: 'Raw answer' });
    await expect(raw).toContainText('status 200');
    await expect(raw.getByLabel('Headers')).toContainText('x-echo-auth: Bearer ****');
    await expect(raw.getByLabel('Body')).toContainText('"youSent": "Bearer ****"');
    await expect(page.getByRole('region', { name: 'Mapped result' })).toContainText(
      '"status": "shipped"',
    );
    expect(await page.content()).not.toContain(TOKEN);
    await shot(page, 'tool-test-raw-and-mapped');

    await page.getByRole('tab', { name: 'Analytics' }).click();
    const picker = page.getByRole('group', { name: 'Time window' });
    await expect(picker.getByRole('button', { name: 'Last 7 days' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await expect(page.getByRole('group', { name: 'Calls over time' })).toContainText(
      '1 in 28 buckets',
    );
    await picker.getByRole('button', { name: 'Last hour' }).click();
    await expect(picker.getByRole('button', { name: 'Last hour' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await expect(page.getByRole('group', { name: 'Calls over time' })).toContainText(
      '1 in 12 buckets',
    );
    await shot(page, 'tool-analytics-last-hour');
  });

  test('the schedule editor previews the next runs and refuses a bad cron before Save', async ({
    page,
  }) => {
    const ws = (await api('GET', '/api/v1/workspaces')).data.workspaces[0].id as string;
    await api('POST', `/api/v1/workspaces/${ws}/scenarios`, { name: 'Late order', prompt: 'p' });
    await openApp(page, serve, 'schedules');
    await page.getByRole('button', { name: 'New schedule' }).first().click();
    const dialog = page.getByRole('dialog');
    const periodicity = dialog.getByLabel('Periodicity');
    await periodicity.fill('0 9 * * *');
    const next = dialog.getByLabel('Next runs');
    await expect(next).toContainText(
      /Next: \w{3} \d{1,2} \w{3} 09:00, \w{3} \d{1,2} \w{3} 09:00, \w{3} \d{1,2} \w{3} 09:00/,
    );
    await expect(next).toContainText('(your time, Europe/Paris) · every day at 09:00');
    const save = dialog.getByRole('button', { name: 'Save schedule' });
    await expect(save).toBeEnabled();
    await shot(page, 'schedule-preview');

    await periodicity.fill('*/61 * * * *');
    await expect(dialog).toContainText('the minute step 61 is wider than 0-59');
    await expect(save).toBeDisabled();
    await expect(next).toHaveCount(0);
    await periodicity.fill('30 8 * * 1-5');
    await expect(next).toContainText('every Monday to Friday at 08:30');
    await expect(save).toBeEnabled();
  });
});
