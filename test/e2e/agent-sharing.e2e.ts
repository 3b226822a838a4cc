import type { Json } from '../helpers/json.js';
import { expect, openApp, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * The agent page shows which workspaces an agent is shared with (whose tokens may run it) and
 * edits that list: chosen by name in a multiple select, saved, and answered so by the API.
 */
test.describe('sharing an agent with workspaces', () => {
  let serve: ServeHandle;
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
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
  });

  test('choose workspaces on the agent page and save', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const teamB = (await api('POST', '/api/v1/workspaces', { name: 'Team B' })).data.workspace
      .id as string;
    // Connecting an agent at its own URL calls nothing: no server needs to listen there.
    const agent: { id: string } = await api('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'In-house bot',
      credentials: { base_url: 'http://127.0.0.1:9/chat' },
    });

    await openApp(page, serve, `agents/${agent.id}`);
    const section = page.getByRole('region', { name: 'Shared with workspaces' });
    await expect(section).toContainText('Not shared: no workspace token can run it');
    await section.getByLabel('Workspaces').click();
    await page.getByRole('option', { name: 'Team B' }).click();
    await page.keyboard.press('Escape');
    await section.getByRole('button', { name: 'Save sharing' }).click();

    await expect
      .poll(async () => (await api('GET', `/v1/agents/${agent.id}`)).workspaces)
      .toEqual([teamB]);
    await expect(section.getByLabel('Workspaces')).toHaveText('Team B');
    await expect(section).not.toContainText('Not shared');
    expect(errors).toEqual([]);
  });
});
