import { expect, openApp, section, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * Cost in the app: prices edited in Settings and read back through the API, the Execute dialog's
 * "Max cost" sent with the run (a negative cap refused under the field, nothing queued), and the
 * schedule form's, answered back when editing.
 */
test.describe('prices and the spend cap', () => {
  let serve: ServeHandle;
  let workspace: string;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T & { data: T };
    expect(res.ok, JSON.stringify(json)).toBe(true);
    return path.startsWith('/api/') ? json.data : json;
  };

  test.beforeAll(async () => {
    serve = await startServe();
    const { workspaces } = await api<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    workspace = workspaces[0]!.id;
  });
  test.afterAll(async () => {
    await serve?.stop();
  });

  test('a model priced in Settings is saved and read back', async ({ page }) => {
    await openApp(page, serve);
    await section(page, 'Settings');
    const llm = page.getByRole('group', { name: 'Language models prices' });
    await llm.getByRole('button', { name: 'Add language models price' }).click();
    await llm.getByLabel('Model', { exact: true }).fill('gpt-4o');
    await llm.getByLabel('Input $/M', { exact: true }).fill('2.5');
    await llm.getByLabel('Cached input $/M').fill('1.25');
    await llm.getByLabel('Output $/M', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Save prices' }).click();
    await expect
      .poll(
        async () => (await api<{ prices: { llm: unknown[] } }>('GET', '/v1/settings')).prices.llm,
      )
      .toEqual([
        { model: 'gpt-4o', inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
      ]);
    await shot(page, 'settings-prices');
  });

  test('the Execute dialog sends Max cost; a negative one is refused under the field', async ({
    page,
  }) => {
    const persona = await api<{ persona: { id: string } }>(
      'POST',
      `/api/v1/workspaces/${workspace}/personas`,
      { name: 'Frank', prompt: 'A busy shop owner.' },
    );
    await api('POST', `/api/v1/workspaces/${workspace}/scenarios`, {
      name: 'Capped order',
      prompt: 'Ask where your order is.',
      personas: [persona.persona.id],
      targetAgents: [],
    });
    await openApp(page, serve);
    await section(page, 'Scenarios');
    await page
      .getByRole('row', { name: /Capped order/ })
      .getByRole('button', { name: 'Execute' })
      .click();
    const run = page.getByRole('dialog', { name: /Execute/ });
    await run.getByLabel('Max cost (USD)').fill('-1');
    await run.getByRole('button', { name: 'Start' }).click();
    await expect(
      run.getByText(/greater than or equal to 0|too small|at least 0/i).first(),
    ).toBeVisible();
    // Said once, under the field: not again in a box below the form.
    await expect(run.getByText('maxCostUsd')).toHaveCount(0);
    await shot(page, 'execute-max-cost-refused');
    const { executions } = await api<{ executions: unknown[] }>(
      'GET',
      `/api/v1/workspaces/${workspace}/executions`,
    );
    expect(executions).toEqual([]);
  });

  test('the schedule form takes Max cost, answers it back when editing, and clears it', async ({
    page,
  }) => {
    await api('POST', `/api/v1/workspaces/${workspace}/scenarios`, {
      name: 'Nightly capped',
      prompt: 'Ask where your order is.',
      personas: [],
      targetAgents: [],
    });
    const stored = async () =>
      (
        await api<{ schedules: { name: string; maxCostUsd: number | null }[] }>(
          'GET',
          `/api/v1/workspaces/${workspace}/schedules`,
        )
      ).schedules.find((x) => x.name === 'Capped nightly run');
    await openApp(page, serve);
    await section(page, 'Schedules');
    await page.getByRole('button', { name: 'New schedule' }).first().click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Name', { exact: true }).fill('Capped nightly run');
    await form.getByLabel('Scenario').click();
    await page.getByRole('option', { name: 'Nightly capped' }).click();
    await expect(page.getByRole('listbox')).toHaveCount(0);
    await form.getByLabel('Max cost (USD)').fill('2.5');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await expect(page.getByRole('table', { name: 'Schedules' })).toContainText(
      'Capped nightly run',
    );
    await expect.poll(async () => (await stored())?.maxCostUsd).toBe(2.5);

    const row = page.getByRole('row', { name: /Capped nightly run/ });
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: /Edit schedule/ });
    await expect(edit.getByLabel('Max cost (USD)')).toHaveValue('2.5');
    // A negative cap is refused under the field; the stored one stays.
    await edit.getByLabel('Max cost (USD)').fill('-1');
    await edit.getByRole('button', { name: 'Save schedule' }).click();
    await expect(
      edit.getByText(/greater than or equal to 0|too small|at least 0/i).first(),
    ).toBeVisible();
    expect((await stored())?.maxCostUsd).toBe(2.5);
    // Blank is no cap.
    await edit.getByLabel('Max cost (USD)').fill('');
    await edit.getByRole('button', { name: 'Save schedule' }).click();
    await expect(edit).toHaveCount(0);
    await expect.poll(async () => (await stored())?.maxCostUsd).toBeNull();
  });
});
