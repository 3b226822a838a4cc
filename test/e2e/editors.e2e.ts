import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { expect, openApp, section, startServe, test, type ServeHandle } from './fixtures.js';

interface Metric {
  name: string;
  category: string;
  type: string;
  config: Record<string, unknown>;
  weight: number;
  critical: boolean;
}
interface ScriptLine {
  say?: string;
  expect?: Record<string, string>;
  backchannel?: { afterMs: number };
  dtmf?: string;
}

/**
 * The editors that were JSON text: scorecard metrics and a scenario's variables and script lines
 * as forms, each with a "JSON" switch to the raw view; the raw view checked as it is typed, with
 * Save disabled while it does not parse. Everything saved is read back through the API.
 */
test.describe('editing without JSON', () => {
  let serve: ServeHandle;
  let workspace: string;
  let providers: FakeProviders;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { data: T };
    expect(res.ok, JSON.stringify(json)).toBe(true);
    return json.data;
  };
  const scorecards = () =>
    api<{ scorecards: { name: string; metrics: Metric[] }[] }>(
      'GET',
      `/api/v1/workspaces/${workspace}/scorecards`,
    ).then((d) => d.scorecards);

  test.beforeAll(async () => {
    [serve, providers] = await Promise.all([startServe(), startFakeProviders()]);
    const { workspaces } = await api<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    workspace = workspaces[0]!.id;
  });
  test.afterAll(async () => {
    await Promise.all([serve?.stop(), providers?.stop()]);
  });

  test('invalid JSON in the scorecard editor disables Save, and nothing is saved', async ({
    page,
  }) => {
    await api('POST', `/api/v1/workspaces/${workspace}/scorecards`, {
      name: 'Broken on screen',
      metrics: [{ name: 'Says shipped', type: 'contains', config: { text: 'shipped' } }],
    });
    await openApp(page, serve);
    await section(page, 'Scorecards');
    await page
      .getByRole('row', { name: /Broken on screen/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Edit scorecard' });
    await dialog.getByRole('switch', { name: 'Scorecard metrics as JSON' }).check();
    const json = dialog.getByLabel(/^Metrics/);
    await expect(json).toHaveValue(/"text": "shipped"/);
    // A new metric that parses, then a broken edit of it: the screen shows the broken one.
    await json.fill(
      '[{"name": "Says refunded", "type": "contains", "config": {"text": "refunded"}}]',
    );
    await json.fill('[{"name": "Says refunded", "type": "contains", "config": {"text": "refun');
    await expect(json).toHaveAccessibleDescription(/Not valid JSON/);
    const save = dialog.getByRole('button', { name: 'Save scorecard' });
    await expect(save).toBeDisabled();
    // Nor can it go back to the form, which would show the last value that parsed.
    await expect(dialog.getByRole('switch', { name: 'Scorecard metrics as JSON' })).toBeDisabled();
    await save.click({ force: true });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const [stored] = (await scorecards()).filter((s) => s.name === 'Broken on screen');
    expect(stored!.metrics.map((m) => m.config)).toEqual([{ text: 'shipped' }]);
  });

  test('a scorecard made with the form is saved and read back, in the form and as JSON', async ({
    page,
  }) => {
    await openApp(page, serve);
    await section(page, 'Scorecards');
    await page.getByRole('button', { name: 'New scorecard' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New scorecard' });
    await dialog.getByLabel('Name', { exact: true }).fill('Made with the form');
    const metrics = dialog.getByRole('group', { name: 'Scorecard metrics' });
    // The example row becomes a regex metric; a second row, a latency one, is critical.
    const first = metrics.getByRole('group', { name: 'metric 1' });
    await first.getByLabel('Metric name').fill('Gives an order number');
    await first.getByLabel('Type').click();
    await page.getByRole('option', { name: 'regex', exact: true }).click();
    await first.getByLabel('Pattern').fill('[A-Z]-\\d+');
    await first.getByLabel('Flags').fill('i');
    await metrics.getByRole('button', { name: 'Add metric' }).click();
    const second = metrics.getByRole('group', { name: 'metric 2' });
    await second.getByLabel('Metric name').fill('Answers fast');
    await second.getByLabel('Category').fill('latency');
    await second.getByLabel('Type').click();
    await page.getByRole('option', { name: 'max latency ms', exact: true }).click();
    await second.getByLabel('Max (ms)').fill('2500');
    await second.getByLabel('Weight').fill('2');
    await second.getByLabel('Critical').check();

    // The JSON view shows the same value, and back in the form nothing is lost.
    await metrics.getByRole('switch', { name: 'Scorecard metrics as JSON' }).check();
    const json = JSON.parse(await dialog.getByLabel(/^Metrics/).inputValue()) as Metric[];
    expect(json.map((m) => [m.type, m.config])).toEqual([
      ['regex', { pattern: '[A-Z]-\\d+', flags: 'i' }],
      ['max_latency_ms', { max: 2500 }],
    ]);
    await metrics.getByRole('switch', { name: 'Scorecard metrics as JSON' }).uncheck();
    await expect(second.getByLabel('Max (ms)')).toHaveValue('2500');

    await dialog.getByRole('button', { name: 'Save scorecard' }).click();
    await expect(dialog).toBeHidden();
    const [stored] = (await scorecards()).filter((s) => s.name === 'Made with the form');
    expect(stored!.metrics).toMatchObject([
      {
        name: 'Gives an order number',
        type: 'regex',
        config: { pattern: '[A-Z]-\\d+', flags: 'i' },
      },
      {
        name: 'Answers fast',
        category: 'latency',
        type: 'max_latency_ms',
        config: { max: 2500 },
        weight: 2,
        critical: true,
      },
    ]);

    // Opened again, the form shows what was saved.
    await page
      .getByRole('row', { name: /Made with the form/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    const again = page.getByRole('dialog', { name: 'Edit scorecard' });
    await expect(again.getByRole('group', { name: 'metric 2' }).getByLabel('Max (ms)')).toHaveValue(
      '2500',
    );
    await expect(again.getByRole('group', { name: 'metric 1' }).getByLabel('Pattern')).toHaveValue(
      '[A-Z]-\\d+',
    );
  });
  test("a scenario's variable and script lines added, reordered and saved", async ({ page }) => {
    await api('POST', `/api/v1/workspaces/${workspace}/scenarios`, {
      name: 'Refund by phone',
      prompt: 'You want a refund for order {{order_id}}.',
      personas: [],
      targetAgents: [],
      promptVariables: [{ name: 'order_id', type: 'string', defaultValue: 'A-1' }],
      script: [{ say: 'Hello, I want a refund.' }],
    });
    await openApp(page, serve);
    await section(page, 'Scenarios');
    await page
      .getByRole('row', { name: /Refund by phone/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Edit scenario' });
    const variables = dialog.getByRole('group', { name: 'Prompt variables' });
    await expect(variables.getByLabel('Variable name')).toHaveValue('order_id');
    await variables.getByRole('button', { name: 'Add variable' }).click();
    const amount = variables.getByRole('group', { name: 'variable 2' });
    await amount.getByLabel('Variable name').fill('amount');
    await amount.getByLabel('Variable type').click();
    await page.getByRole('option', { name: 'number', exact: true }).click();
    await amount.getByLabel('Default value').fill('20');

    // Two lines added, then the digits moved up before the thanks; the first line gets an expectation.
    const script = dialog.getByRole('group', { name: 'Caller script' });
    await script.getByRole('button', { name: 'Add script line' }).click();
    await script
      .getByRole('group', { name: 'script line 2' })
      .getByLabel('Say')
      .fill('Thanks, bye.');
    await script.getByRole('group', { name: 'script line 2' }).getByLabel('Hang up after').check();
    await script.getByRole('button', { name: 'Add script line' }).click();
    const digits = script.getByRole('group', { name: 'script line 3' });
    await digits.getByLabel('Say').fill('My order is');
    await digits.getByLabel('Keypad digits (DTMF)').fill('1234#');
    await digits.getByLabel('Backchannel after (ms)').fill('800');
    await script.getByRole('button', { name: 'Move script line 3 up' }).click();
    await expect(
      script.getByRole('group', { name: 'script line 2' }).getByLabel('Say'),
    ).toHaveValue('My order is');
    await expect(script.getByRole('button', { name: 'Move script line 1 up' })).toBeDisabled();
    await script
      .getByRole('group', { name: 'script line 1' })
      .getByLabel('Reply contains')
      .fill('refund');

    // The JSON view shows the lines in their new order.
    await script.getByRole('switch', { name: 'Caller script as JSON' }).check();
    const json = JSON.parse(await dialog.getByLabel(/^Script/).inputValue()) as ScriptLine[];
    expect(json.map((l) => l.say)).toEqual([
      'Hello, I want a refund.',
      'My order is',
      'Thanks, bye.',
    ]);

    await dialog.getByRole('button', { name: 'Save scenario' }).click();
    await expect(dialog).toBeHidden();
    const { scenarios } = await api<{
      scenarios: { name: string; script: ScriptLine[]; promptVariables: unknown[] }[];
    }>('GET', `/api/v1/workspaces/${workspace}/scenarios`);
    const stored = scenarios.find((s) => s.name === 'Refund by phone')!;
    expect(stored.script).toEqual([
      { say: 'Hello, I want a refund.', expect: { contains: 'refund' } },
      { say: 'My order is', dtmf: '1234#', backchannel: { afterMs: 800 } },
      { say: 'Thanks, bye.', hangup: true },
    ]);
    expect(stored.promptVariables).toEqual([
      { name: 'order_id', type: 'string', defaultValue: 'A-1' },
      { name: 'amount', type: 'number', defaultValue: '20' },
    ]);
  });

  test('the JSON switch shows the same value both ways, and refuses to leave unparsable JSON', async ({
    page,
  }) => {
    await openApp(page, serve);
    await section(page, 'Scorecards');
    await page.getByRole('button', { name: 'New scorecard' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New scorecard' });
    const toggle = dialog.getByRole('switch', { name: 'Scorecard metrics as JSON' });
    await toggle.check();
    const json = dialog.getByLabel(/^Metrics/);
    await json.fill(
      JSON.stringify([
        {
          name: 'Never says sorry',
          type: 'not_contains',
          config: { text: 'sorry', caseSensitive: true },
        },
      ]),
    );
    await toggle.uncheck();
    const row = dialog.getByRole('group', { name: 'metric 1' });
    await expect(row.getByLabel('Metric name')).toHaveValue('Never says sorry');
    await expect(row.getByLabel('Type')).toContainText('not contains');
    await expect(row.getByLabel('Text', { exact: true })).toHaveValue('sorry');
    await expect(row.getByLabel('Case-sensitive')).toBeChecked();
    await row.getByLabel('Text', { exact: true }).fill('apolog');
    await toggle.check();
    await expect(json).toHaveValue(/"text": "apolog"/);
    // Not a list: it parses, but the form cannot show it, so the switch stays on JSON.
    await json.fill('{"name": "one metric"}');
    await expect(toggle).toBeDisabled();
    await expect(json).toHaveAccessibleDescription(/list of objects/);
    await json.fill('[');
    await expect(json).toHaveAccessibleDescription(/Not valid JSON/);
    await expect(dialog.getByRole('button', { name: 'Save scorecard' })).toBeDisabled();
    await json.fill('[]');
    await expect(toggle).toBeEnabled();
    await expect(dialog.getByRole('button', { name: 'Save scorecard' })).toBeEnabled();
  });

  test("an alert's condition picked from the scenarios, with the metric's range", async ({
    page,
  }) => {
    const { scenario } = await api<{ scenario: { id: string } }>(
      'POST',
      `/api/v1/workspaces/${workspace}/scenarios`,
      { name: 'Watched scenario', prompt: 'Ask for a refund.', personas: [], targetAgents: [] },
    );
    await openApp(page, serve);
    await section(page, 'Alerts');
    await page.getByRole('button', { name: 'New alert' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New alert' });
    await dialog.getByLabel('Name', { exact: true }).fill('Scenario failing');
    await dialog.getByLabel('Condition', { exact: true }).click();
    await page.getByRole('option', { name: 'scenario failure' }).click();
    await dialog.getByLabel('Scenario', { exact: true }).click();
    await page.getByRole('option', { name: 'Watched scenario' }).click();
    await expect(dialog.getByLabel('Metric', { exact: true })).toContainText(
      'pass rate (0 to 100)',
    );
    await expect(dialog.getByLabel('Threshold')).toHaveAccessibleDescription('0 to 100');
    await dialog.getByLabel('Threshold').fill('80');
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    await expect(dialog).toBeHidden();
    const res = await fetch(`${serve.url}/v1/alerts`, {
      headers: { authorization: `Bearer ${serve.key}` },
    });
    const { alerts } = (await res.json()) as {
      alerts: { name: string; condition: Record<string, unknown> }[];
    };
    expect(alerts.find((a) => a.name === 'Scenario failing')!.condition).toMatchObject({
      type: 'scenario_failure',
      scenarioId: scenario.id,
      metric: 'pass_rate',
      threshold: 80,
    });
  });

  test("a tool's request, parameters and mapping made with the form", async ({ page }) => {
    await openApp(page, serve);
    await section(page, 'Tools');
    await page.getByRole('button', { name: 'New tool' }).first().click();
    const editor = page.getByRole('dialog', { name: 'New tool' });
    await editor.getByLabel('Name', { exact: true }).fill('refund_order');
    const form = editor.getByRole('group', { name: 'Tool definition' });
    await form.getByLabel('Method').click();
    await page.getByRole('option', { name: 'POST' }).click();
    await form
      .getByLabel('URL', { exact: true })
      .fill('https://shop.example.com/orders/{orderId}/refund');
    await form.getByLabel('Auth', { exact: true }).click();
    await page.getByRole('option', { name: 'bearer' }).click();
    await form.getByLabel('Bearer token').fill('sk_live_refunds');
    await form.getByRole('button', { name: 'Add parameter' }).click();
    const parameter = form.getByRole('group', { name: 'parameter 1' });
    await parameter.getByLabel('Parameter name').fill('orderId');
    await parameter.getByLabel('Required').check();
    await form.getByRole('button', { name: 'Add mapped field' }).click();
    const mapped = form.getByRole('group', { name: 'mapped field 1' });
    await mapped.getByLabel('Result field').fill('refunded');
    await mapped.getByLabel('Path in the answer').fill('refund.done');
    await editor.getByRole('button', { name: 'Save tool' }).click();
    await expect(page.getByRole('heading', { name: 'Tool: refund_order' })).toBeVisible();

    const res = await fetch(`${serve.url}/v1/tools/refund_order`, {
      headers: { authorization: `Bearer ${serve.key}` },
    });
    const tool = (await res.json()) as Record<string, unknown>;
    expect(tool).toMatchObject({
      type: 'api',
      config: {
        method: 'POST',
        url: 'https://shop.example.com/orders/{orderId}/refund',
        auth: { type: 'bearer' },
      },
      parameters: [{ name: 'orderId', type: 'string', required: true }],
      responseMapping: { refunded: 'refund.done' },
    });
  });

  test("an agent's overrides edited leaf by leaf on the synced tree", async ({ page }) => {
    const res = await fetch(`${serve.url}/v1/agents/connect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: providers.url },
      }),
    });
    const { id } = (await res.json()) as { id: string };
    await openApp(page, serve);
    await section(page, 'Agents');
    await page.getByRole('cell', { name: 'Support Sam' }).click();
    const overrides = page.getByRole('group', { name: 'Local overrides' });
    const temperature = overrides.getByLabel('model.temperature', { exact: true });
    await expect(temperature).toHaveValue('0.3');
    await temperature.fill('0.9');
    await expect(temperature).toHaveAccessibleDescription('override (synced: 0.3)');
    // The JSON view holds the one override, and nothing else.
    await overrides.getByRole('switch', { name: 'Local overrides as JSON' }).check();
    expect(
      JSON.parse(await overrides.getByLabel('Overrides', { exact: true }).inputValue()),
    ).toEqual({ model: { temperature: 0.9 } });
    await page.getByRole('button', { name: 'Save overrides' }).click();
    await expect(page.getByRole('row', { name: /model\.temperature/ })).toContainText('override');
    const agent = (await (
      await fetch(`${serve.url}/v1/agents/${id}`, {
        headers: { authorization: `Bearer ${serve.key}` },
      })
    ).json()) as { overrides: string[]; configuration: { model: { temperature: number } } };
    expect(agent.overrides).toEqual(['configuration.model.temperature']);
    expect(agent.configuration.model.temperature).toBe(0.9);
  });
});
