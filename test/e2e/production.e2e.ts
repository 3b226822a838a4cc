import { startFakeBrain } from '../helpers/fake-brain.js';
import {
  GOOD_KEY,
  T0,
  startFakeProviders,
  vapiCall,
  type FakeProviders,
} from '../helpers/fake-providers.js';
import type { Json } from '../helpers/json.js';
import { expect, openApp, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * Issue #37 section 7, the agent's Production tab: a Vapi agent's imported calls scored by
 * monitoring turned on from the tab, a backfill, the scored calls filtered to the failed ones, a
 * call read with its turns numbered as the judge numbered them and the judge's evidence marked in
 * its turn, a scenario made of it, "Evaluate now", and monitoring turned off.
 */

/**
 * The fake's Vapi call `i`, moved to start `minutesAgo` before now (the first import reads the
 * last 30 days), its last agent line saying `last` and its tool answering `status`.
 */
function recentCall(i: number, minutesAgo: number, shipped: boolean): Json {
  const base = vapiCall(i);
  const shift = Date.now() - minutesAgo * 60_000 - (T0 + i * 60_000);
  const at = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
  const messages = (base.messages as Json[]).map((m) => ({
    ...m,
    ...(typeof m.time === 'number' ? { time: m.time + shift } : {}),
    ...(typeof m.endTime === 'number' ? { endTime: m.endTime + shift } : {}),
  }));
  const result = messages.find((m) => m.role === 'tool_call_result')!;
  Object.assign(result, { result: JSON.stringify({ status: shipped ? 'shipped' : 'delayed' }) });
  delete result.error;
  messages.at(-1)!.message = shipped
    ? `It has shipped, tracking number TRK${i}.`
    : `Sorry, it is delayed, tracking number TRK${i}.`;
  return {
    ...base,
    createdAt: at(base.createdAt as string),
    startedAt: at(base.startedAt as string),
    endedAt: at(base.endedAt as string),
    endedReason: 'customer-ended-call',
    analysis: { ...base.analysis, successEvaluation: 'true' },
    messages,
  };
}

test.describe('the Production tab', () => {
  let serve: ServeHandle;
  let providers: FakeProviders;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
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
    [providers, brain] = await Promise.all([startFakeProviders(), startFakeBrain()]);
    // Two calls whose agent said the order shipped, two whose agent said it is delayed.
    providers.state.vapiCalls = [
      recentCall(1, 90, true),
      recentCall(2, 80, false),
      recentCall(3, 70, true),
      recentCall(4, 60, false),
    ];
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
    await Promise.all([providers?.stop(), brain?.stop()]);
  });

  /** The agent connected, its four calls imported; a judge, and a scorecard to monitor with. */
  const prepare = async () => {
    const agent = await api('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const agentId = agent.id as string;
    await expect
      .poll(async () => (await api('GET', `/v1/agents/${agentId}/calls`)).total, {
        timeout: 20_000,
      })
      .toBe(4);
    await api('PATCH', '/v1/settings', {
      llm: {
        judge: { kind: 'openai', baseUrl: brain.url, apiKey: 'sk-fake-123456', model: 'fake' },
      },
    });
    const ws = (await api('GET', '/api/v1/workspaces')).data.workspaces[0].id as string;
    const card = await api('POST', `/api/v1/workspaces/${ws}/scorecards`, {
      name: 'Production card',
      metrics: [
        {
          name: 'Says shipped',
          category: 'accuracy',
          type: 'contains',
          config: { text: 'shipped' },
        },
        {
          name: 'Gives tracking',
          category: 'helpfulness',
          type: 'llm_judge',
          config: {
            criterion: 'The agent helps with the order',
            requirements: ['Gives the tracking number', 'Stays polite'],
          },
        },
        // A figure an imported call cannot give: not applicable, left out of the score.
        { name: 'Heard right', category: 'speech', type: 'max_asr_wer', config: { max: 0.2 } },
      ],
    });
    return { agentId, ws, scorecardId: card.data.scorecard.id as string };
  };

  test('monitor, backfill, filter to failed, read a call with its evidence, make a scenario', async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const { agentId, ws, scorecardId } = await prepare();
    await openApp(page, serve, `agents/${agentId}`);
    await page.getByRole('tab', { name: 'Production' }).click();
    await expect(page.getByLabel('Production figures')).toContainText('No call scored yet');

    // Monitoring turned on from the tab: the scorecard picked, every call sampled.
    const monitoring = page.getByRole('region', { name: 'Monitoring' });
    await expect(monitoring).toContainText('Monitoring off');
    await monitoring.getByRole('combobox', { name: 'Scorecard' }).click();
    await page.getByRole('option', { name: 'Production card' }).click();
    await monitoring.getByRole('spinbutton', { name: 'Sample rate' }).fill('101');
    await monitoring.getByRole('button', { name: 'Save monitoring' }).click();
    // A refusal is said at its field, and nothing is saved.
    await expect(monitoring.getByRole('spinbutton', { name: 'Sample rate' })).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    expect((await api('GET', `/v1/agents/${agentId}`)).monitoring).toBeNull();
    await monitoring.getByRole('spinbutton', { name: 'Sample rate' }).fill('100');
    await monitoring.getByRole('button', { name: 'Save monitoring' }).click();
    await expect(monitoring).toContainText('Monitoring on');
    expect((await api('GET', `/v1/agents/${agentId}`)).monitoring).toEqual({
      workspaceId: ws,
      scorecardId,
      sampleRate: 100,
      enabled: true,
      shortCallMs: 10_000,
    });

    // The calls imported before are scored by a backfill only.
    const calls = page.getByRole('table', { name: 'Scored calls' });
    await expect(calls.getByRole('row')).toHaveCount(5);
    await expect(calls).not.toContainText('passed');
    await monitoring.getByRole('button', { name: 'Backfill' }).click();
    await expect(monitoring.getByRole('status')).toHaveText('4 calls queued for scoring');
    // Scores arrive in the background: the list and the figures follow them.
    await expect(calls.getByText('not scored')).toHaveCount(0, { timeout: 30_000 });
    await expect(calls.getByText('passed', { exact: true })).toHaveCount(2);
    await expect(calls.getByText('failed', { exact: true })).toHaveCount(2);
    await expect(calls.getByText('backfill', { exact: true })).toHaveCount(4);
    await expect(page.getByLabel('Production figures')).toContainText('4 calls scored, 2 passed');
    await expect(page.getByLabel('Production figures')).toContainText('pass rate 50%');
    await shot(page, 'e37-production-scored');

    // Filtered to the failed calls (by the engine), then to those failing the contains metric.
    const filters = page.getByRole('group', { name: 'Call filters' });
    await filters.getByRole('combobox', { name: 'Verdict' }).click();
    await page.getByRole('option', { name: 'failed', exact: true }).click();
    await expect(calls.getByRole('row')).toHaveCount(3);
    await expect(calls.getByText('passed', { exact: true })).toHaveCount(0);
    await filters.getByRole('combobox', { name: 'Failing metric' }).click();
    await page.getByRole('option', { name: 'Gives tracking' }).click();
    await expect(calls.getByRole('row')).toHaveCount(1);
    await filters.getByRole('combobox', { name: 'Failing metric' }).click();
    await page.getByRole('option', { name: 'Says shipped' }).click();
    await expect(calls.getByRole('row')).toHaveCount(3);
    await filters.getByRole('spinbutton', { name: 'Max score' }).fill('40');
    await expect(calls.getByRole('row')).toHaveCount(1);
    await filters.getByRole('spinbutton', { name: 'Max score' }).fill('');
    await expect(calls.getByRole('row')).toHaveCount(3);
    await filters.getByRole('spinbutton', { name: 'Min score' }).fill('60');
    await expect(calls.getByRole('row')).toHaveCount(1);
    await filters.getByRole('spinbutton', { name: 'Min score' }).fill('');
    // The calls started before the first synced version have none.
    await filters.getByRole('spinbutton', { name: 'Version' }).fill('1');
    await expect(calls.getByRole('row')).toHaveCount(1);
    await filters.getByRole('spinbutton', { name: 'Version' }).fill('');
    await filters.getByRole('combobox', { name: 'Reason' }).click();
    await page.getByRole('option', { name: 'asked' }).click();
    // Filtered by the engine: the total counts only the calls evaluated for that reason.
    await expect(calls.getByRole('row')).toHaveCount(1);
    await expect(page.getByText('0–0 of 0')).toBeVisible();
    await filters.getByRole('combobox', { name: 'Reason' }).click();
    await page.getByRole('option', { name: 'backfill' }).click();
    await expect(calls.getByRole('row')).toHaveCount(3);
    await shot(page, 'e37-production-failed');

    // A failed call: numbered turns, the tool turn in its place, the evidence marked in its turn.
    await calls.getByRole('row').nth(1).click();
    const call = page.getByRole('region', { name: 'Call' });
    const turns = call.getByRole('log', { name: 'Numbered turns' });
    await expect(turns.locator('[data-turn]')).toHaveCount(4);
    await expect(turns.locator('[data-turn="0"]')).toContainText('0.Agent: Hi, how can I help?');
    await expect(turns.locator('[data-turn="1"]')).toContainText('Caller: Where is order A1?');
    await expect(turns.locator('[data-turn="2"]')).toHaveAttribute('data-role', 'tool');
    await expect(turns.locator('[data-turn="2"]')).toContainText('[tool order_status');
    await expect(turns.locator('[data-turn="3"]')).toContainText('Sorry, it is delayed');
    const shipped = call.getByRole('article', { name: 'Metric Says shipped' });
    await expect(shipped).toContainText('failed');
    await expect(shipped).toContainText('The agent never said "shipped"');
    const judged = call.getByRole('article', { name: 'Metric Gives tracking' });
    await expect(judged).toContainText('passed');
    await expect(judged).toContainText('judged by fake');
    await expect(judged.getByRole('list', { name: 'Requirements' })).toHaveText(
      '✓ met: Gives the tracking number✓ met: Stays polite',
    );
    const heard = call.getByRole('article', { name: 'Metric Heard right' });
    await expect(heard).toContainText('not applicable');
    await expect(heard).toContainText('no word error rate');
    await expect(turns.locator('mark')).toHaveCount(0);
    await judged.getByRole('button', { name: /^Turn 3: / }).click();
    await expect(turns.locator('[data-turn="3"]')).toHaveAttribute('aria-current', 'true');
    // The fake judge quotes the first 40 characters of the line.
    await expect(turns.locator('[data-turn="3"] mark')).toHaveText(
      'Sorry, it is delayed, tracking number TR',
    );
    await call.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test/e2e/output/screenshots/e37-production-call.png' });

    // Make a scenario of it: the link goes to the scenario made in this workspace.
    await call.getByRole('button', { name: 'Make a scenario' }).click();
    const dialog = page.getByRole('dialog', { name: 'Make a scenario from this call' });
    await dialog.getByLabel('Scenario name (optional)').fill('Delayed order, from production');
    await dialog.getByRole('button', { name: 'Make the scenario' }).click();
    await expect(dialog).toBeHidden();
    const made = call.getByRole('status').filter({ hasText: 'Scenario made' });
    await expect(made).toContainText('Delayed order, from production');
    await expect(made).toContainText('1 scripted line');
    const scenarios = (await api('GET', `/api/v1/workspaces/${ws}/scenarios`)).data
      .scenarios as Json[];
    const scenario = scenarios.find((s) => s.name === 'Delayed order, from production')!;
    expect(scenario.tags).toEqual(['production']);
    expect(scenario.targetAgents).toEqual([agentId]);
    expect((scenario.script as Json[])[0]).toMatchObject({ say: 'Where is order A1?' });
    await shot(page, 'e37-production-scenario');

    // Evaluate now: the call is scored again, asked this time.
    await call.getByRole('button', { name: 'Evaluate now' }).click();
    await expect(call.getByText('Queued for scoring')).toBeVisible();
    await expect(call).toContainText('(on demand)', { timeout: 30_000 });

    await made.getByRole('button', { name: 'Delayed order, from production' }).click();
    await expect(page.getByRole('heading', { name: 'Scenarios' })).toBeVisible();
    await expect(page.getByRole('cell', { name: 'Delayed order, from production' })).toBeVisible();

    // Turned off from the tab: the agent answers no monitoring.
    await page.goBack();
    await page.getByRole('tab', { name: 'Production' }).click();
    await page
      .getByRole('region', { name: 'Monitoring' })
      .getByRole('button', { name: 'Turn off' })
      .click();
    await expect(page.getByRole('region', { name: 'Monitoring' })).toContainText('Monitoring off');
    expect((await api('GET', `/v1/agents/${agentId}`)).monitoring).toBeNull();
    expect(errors).toEqual([]);
  });
});
