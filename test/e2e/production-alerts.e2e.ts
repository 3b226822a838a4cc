import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import {
  SHOTS,
  expect,
  openApp,
  section,
  shot,
  startServe,
  test,
  type ServeHandle,
} from './fixtures.js';

type Json = Record<string, unknown>;

/**
 * Alerts on production (issue #37, section 5) made in the Alerts screen: a pass rate and a trend
 * for an agent whose monitoring was set through the API, the agent without monitoring offered but
 * not pickable, and an alpha the engine refuses said under the Alpha field with nothing saved.
 */
test.describe('production alerts', () => {
  let serve: ServeHandle;
  let providers: FakeProviders;
  let samId: string;
  let greetId: string;

  const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    expect(res.ok, `${method} ${path}: ${JSON.stringify(json)}`).toBe(true);
    return json;
  };
  const connect = async (provider: string, agentId: string) =>
    (
      await api('POST', '/v1/agents/connect', {
        provider,
        agent_id: agentId,
        credentials: { api_key: GOOD_KEY, base_url: providers.url },
      })
    ).id as string;
  const alerts = async () =>
    (await api('GET', '/v1/alerts')).alerts as { name: string; condition: Json }[];

  test.beforeAll(async () => {
    [serve, providers] = await Promise.all([startServe(), startFakeProviders()]);
    const { data } = (await api('GET', '/api/v1/workspaces')) as {
      data: { workspaces: { id: string }[] };
    };
    const workspaceId = data.workspaces[0]!.id;
    samId = await connect('vapi', 'asst_1');
    await connect('retell', 'ret_1');
    const card = (await api('POST', `/api/v1/workspaces/${workspaceId}/scorecards`, {
      name: 'Production',
      metrics: [
        { name: 'Greets', category: 'quality', type: 'contains', config: { text: 'hello' } },
        { name: 'Says goodbye', category: 'quality', type: 'contains', config: { text: 'bye' } },
      ],
    })) as { data: { scorecard: { id: string; metrics: { id: string }[] } } };
    greetId = card.data.scorecard.metrics[0]!.id;
    await api('PATCH', `/v1/agents/${samId}`, {
      monitoring: {
        workspaceId,
        scorecardId: card.data.scorecard.id,
        sampleRate: 30,
        enabled: true,
      },
    });
  });
  test.afterAll(async () => {
    await Promise.all([serve?.stop(), providers?.stop()]);
  });

  test('a pass rate and a trend made for the monitored agent; alpha 0 refused at its field', async ({
    page,
  }) => {
    await openApp(page, serve);
    await section(page, 'Alerts');
    await page.getByRole('button', { name: 'New alert' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New alert' });
    await dialog.getByLabel('Name', { exact: true }).fill('Sam greets less');
    await dialog.getByLabel('Condition', { exact: true }).click();
    await page.getByRole('option', { name: 'production pass rate' }).click();
    await expect(dialog.getByLabel('What it measures')).toContainText(
      "percent of the agent's calls started in the window whose evaluation passed",
    );
    await dialog.getByLabel('Agent', { exact: true }).click();
    // The agent without monitoring is listed, saying why it cannot be picked.
    const rita = page.getByRole('option', { name: /Retail Rita/ });
    await expect(rita).toContainText('no monitoring');
    await expect(rita).toHaveAttribute('aria-disabled', 'true');
    // shot() waits for menus to close: the open picker is taken as it is.
    await page.screenshot({
      path: `${SHOTS}/e37-production-agent-picker.png`,
      animations: 'disabled',
    });
    await page.getByRole('option', { name: /Support Sam/ }).click();
    await expect(dialog.getByLabel('Agent', { exact: true })).toHaveAccessibleDescription(
      /monitoring scorecard/,
    );
    const metric = dialog.getByLabel('Metric', { exact: true });
    await expect(metric).toContainText('All metrics');
    await metric.click();
    await expect(page.getByRole('option')).toHaveText([
      'All metrics',
      'Greets (contains)',
      'Says goodbye (contains)',
    ]);
    await page.getByRole('option', { name: 'Greets (contains)' }).click();
    await dialog.getByLabel('Threshold (%)').fill('80');
    await dialog.getByLabel('Window', { exact: true }).fill('2h');
    await dialog.getByLabel('Minimum samples').fill('10');
    await shot(page, 'e37-production-pass-rate-form');
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    await expect(dialog).toBeHidden();
    const table = page.getByRole('table', { name: 'Alerts' });
    await expect(table.getByRole('row', { name: /Sam greets less/ })).toContainText(
      'production pass rate of Support Sam (metric Greets): less than 80% · 2h · at least 10 calls',
    );

    await page.getByRole('button', { name: 'New alert' }).first().click();
    await dialog.getByLabel('Name', { exact: true }).fill('Sam dropping');
    await dialog.getByLabel('Condition', { exact: true }).click();
    await page.getByRole('option', { name: 'production trend' }).click();
    await expect(dialog.getByLabel('What it measures')).toContainText('minus the EWMA');
    await dialog.getByLabel('Agent', { exact: true }).click();
    await page.getByRole('option', { name: /Support Sam/ }).click();
    await expect(dialog.getByLabel('Operator', { exact: true })).toHaveCount(0);
    const alpha = dialog.getByLabel('Alpha', { exact: true });
    await expect(alpha).toHaveValue('0.3');
    await alpha.fill('0');
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    // The engine's refusal is said under the field it names, and only there.
    await expect(alpha).toHaveAttribute('aria-invalid', 'true');
    await expect(alpha).toHaveAccessibleDescription('must be more than 0');
    await expect(dialog.getByRole('alert')).toHaveCount(0);
    await expect(dialog.getByLabel('Threshold (points)')).not.toHaveAttribute(
      'aria-invalid',
      'true',
    );
    await shot(page, 'e37-production-trend-alpha-refused');
    expect((await alerts()).map((a) => a.name)).toEqual(['Sam greets less']);

    await alpha.fill('0.5');
    await dialog.getByLabel('Threshold (points)').fill('15');
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    await expect(dialog).toBeHidden();
    await expect(table.getByRole('row', { name: /Sam dropping/ })).toContainText(
      'production trend of Support Sam (all metrics): drop above 15 points (alpha 0.5) · 1d · at least 5 calls',
    );
    await shot(page, 'e37-production-alerts-listed');

    const saved = Object.fromEntries((await alerts()).map((a) => [a.name, a.condition]));
    expect(saved['Sam greets less']).toEqual({
      type: 'production_pass_rate',
      agentId: samId,
      metricId: greetId,
      operator: 'less_than',
      threshold: 80,
      timeWindow: '2h',
      minSamples: 10,
    });
    expect(saved['Sam dropping']).toEqual({
      type: 'production_trend',
      agentId: samId,
      operator: 'greater_than',
      threshold: 15,
      alpha: 0.5,
      timeWindow: '1d',
      minSamples: 5,
    });
  });
});
