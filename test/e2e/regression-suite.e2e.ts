import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import type { Json } from '../helpers/json.js';
import { expect, openApp, section, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * The agent page's "Regression suite": scenarios picked by name and runs, saved, answered so by
 * the API, and cleared; the alert editor offers the agent_regression condition, which has no
 * metric or threshold to fill.
 */
test.describe('the drift suite on screen', () => {
  let serve: ServeHandle;
  let providers: FakeProviders;
  const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${serve.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };

  test.beforeAll(async () => {
    providers = await startFakeProviders();
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
    await providers?.stop();
  });

  test('pick scenarios and runs on the agent page, save, clear; alert on a regression', async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const agent: { id: string } = await api('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const ws = (await api('GET', '/api/v1/workspaces')).data.workspaces[0].id as string;
    const scenario = (
      await api('POST', `/api/v1/workspaces/${ws}/scenarios`, {
        name: 'Refund asked',
        prompt: 'Ask for a refund.',
        personas: [],
        targetAgents: [],
      })
    ).data.scenario.id as string;

    await openApp(page, serve, `agents/${agent.id}`);
    const suite = page.getByRole('region', { name: 'Regression suite' });
    await suite.getByLabel('Scenarios').click();
    await page.getByRole('option', { name: 'Refund asked' }).click();
    await page.keyboard.press('Escape');
    await suite.getByLabel('Runs').fill('3');
    await suite.getByRole('button', { name: 'Save suite' }).click();
    await expect
      .poll(async () => (await api('GET', `/v1/agents/${agent.id}`)).regressionSuite)
      .toEqual({ workspaceId: ws, scenarioIds: [scenario], runs: 3 });
    await expect(suite).toContainText('No run yet');
    await shot(page, 'agent-regression-suite');

    // Runs out of range: the engine's words at the field, nothing saved.
    await suite.getByLabel('Runs').fill('25');
    await suite.getByRole('button', { name: 'Save suite' }).click();
    await expect(suite.getByLabel('Runs')).toHaveAttribute('aria-invalid', 'true');
    expect((await api('GET', `/v1/agents/${agent.id}`)).regressionSuite.runs).toBe(3);

    await suite.getByRole('button', { name: 'Clear suite' }).click();
    await expect
      .poll(async () => (await api('GET', `/v1/agents/${agent.id}`)).regressionSuite)
      .toBeNull();

    await section(page, 'Alerts');
    await page.getByRole('button', { name: 'New alert' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New alert' });
    await dialog.getByLabel('Name', { exact: true }).fill('Support Sam regressed');
    await dialog.getByLabel('Condition', { exact: true }).click();
    await page.getByRole('option', { name: 'agent regression' }).click();
    await dialog.getByLabel('Agent', { exact: true }).click();
    await page.getByRole('option', { name: /Support Sam/ }).click();
    await expect(dialog.getByLabel('Metric', { exact: true })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    await expect(dialog).toBeHidden();
    const { alerts } = (await api('GET', '/v1/alerts')) as {
      alerts: { name: string; condition: Json }[];
    };
    const condition = alerts.find((a) => a.name === 'Support Sam regressed')!.condition;
    expect(condition).toMatchObject({ type: 'agent_regression', agentId: agent.id });
    expect(condition.metric).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
