import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import type { Json } from '../helpers/json.js';
import { startFakeReplica } from '../experiments/fake-replica.js';
import { expect, openApp, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * The agent page's "Variants": a new variant (a name and its configuration) listed under the
 * agent; "Experiment": scenarios, runs and a configuration picked, its status followed until the
 * verdict and the comparison show, then "Apply" makes the configuration the agent's overrides
 * (and writes nothing to the provider). The replica is a fake model that confirms the shipping
 * only under the candidate's prompt.
 */
const MARKER = 'Always confirm shipping.';

test.describe('variants and experiments on screen', () => {
  let serve: ServeHandle;
  let providers: FakeProviders;
  let replica: Awaited<ReturnType<typeof startFakeReplica>>;
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
    [providers, replica] = await Promise.all([startFakeProviders(), startFakeReplica(MARKER)]);
    serve = await startServe({
      CALLBENCH_LLM_BASE_URL: replica.url,
      CALLBENCH_LLM_API_KEY: 'k',
      CALLBENCH_LLM_MODEL: 'fake',
    });
  });
  test.afterAll(async () => {
    await serve?.stop();
    await providers?.stop();
    await replica?.stop();
  });

  test('make a variant, run an experiment to its verdict, apply it', async ({ page }) => {
    test.setTimeout(120_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const agent: { id: string } = await api('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const ws = (await api('GET', '/api/v1/workspaces')).data.workspaces[0].id as string;
    const persona = (
      await api('POST', `/api/v1/workspaces/${ws}/personas`, { name: 'Q', prompt: 'Calm.' })
    ).data.persona.id as string;
    const scorecard = (
      await api('POST', `/api/v1/workspaces/${ws}/scorecards`, {
        name: 'Ships',
        metrics: [
          { name: 'Shipped', category: 'accuracy', type: 'contains', config: { text: 'shipped' } },
        ],
      })
    ).data.scorecard.id as string;
    await api('POST', `/api/v1/workspaces/${ws}/scenarios`, {
      name: 'Late order',
      prompt: 'Asks about an order.',
      personas: [persona],
      targetAgents: [agent.id],
      scorecard,
      script: [{ say: 'Where is order A1?' }],
    });
    const writes = providers.writes.length;

    await openApp(page, serve, `agents/${agent.id}`);
    const variants = page.getByRole('region', { name: 'Variants' });
    await variants.getByRole('button', { name: 'New variant' }).click();
    const made = page.getByRole('dialog', { name: 'New variant of Support Sam' });
    await made.getByLabel('Name', { exact: true }).fill('Sam, warmer');
    await made.getByLabel('model.temperature', { exact: true }).fill('0.9');
    await made.getByRole('button', { name: 'Create variant' }).click();
    await expect(made).toBeHidden();
    await expect(variants.getByRole('table', { name: 'Variants' })).toContainText('Sam, warmer');
    await shot(page, 'agent-variants');
    const listed = (await api('GET', `/v1/agents/${agent.id}/variants`)).variants as Json[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      parentId: agent.id,
      overrides: ['configuration.model.temperature'],
    });

    await variants.getByRole('button', { name: 'Experiment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Experiment on Support Sam' });
    await dialog.getByLabel('Scenarios').click();
    await page.getByRole('option', { name: 'Late order' }).click();
    await page.keyboard.press('Escape');
    await dialog.getByLabel('Runs').fill('5');
    await dialog.getByLabel('prompt', { exact: true }).fill(`You are Sam. ${MARKER}`);
    await dialog.getByRole('button', { name: 'Start experiment' }).click();
    await expect(dialog.locator('[data-status="completed"]')).toBeVisible({ timeout: 90_000 });
    await expect(dialog.locator('[data-verdict="improved"]')).toBeVisible();
    await expect(dialog.getByRole('button', { name: /Open comparison cmp_/ })).toBeVisible();
    await shot(page, 'experiment-done');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await expect(dialog.getByRole('button', { name: 'Applied' })).toBeDisabled();
    const after = await api('GET', `/v1/agents/${agent.id}`);
    expect(after.overrides).toEqual(['configuration.prompt']);
    expect(after.configuration.prompt).toBe(`You are Sam. ${MARKER}`);
    expect(providers.writes.slice(writes)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
