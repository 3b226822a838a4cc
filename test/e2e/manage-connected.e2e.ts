import type { Json } from '../helpers/json.js';
import { startFakeSpeech, type FakeSpeech } from '../helpers/fake-speech.js';
import { expect, openApp, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * A tester's first hour, issue #35 sections 3 and 4: errors said at the field they concern (once,
 * by its label), a delete of something in use refused before the "for good?" question, an
 * agent's connection edited and disconnected, chips that tell the truth, the speech tests of
 * Settings, and the Execute dialog saying which model is missing before the click.
 */
test.describe('errors in the screen words, and managing what is connected', () => {
  let serve: ServeHandle;
  let speech: FakeSpeech;
  let ws: string;
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
  const inWs = (method: string, path: string, body?: unknown) =>
    api(method, `/api/v1/workspaces/${ws}${path}`, body);

  test.beforeAll(async () => {
    [serve, speech] = await Promise.all([startServe(), startFakeSpeech()]);
    ws = (await api('GET', '/api/v1/workspaces')).data.workspaces[0].id;
  });
  test.afterAll(async () => {
    await Promise.all([serve?.stop(), speech?.stop()]);
  });

  test('a field error is said under the field, by its label, and not again in a banner', async ({
    page,
  }) => {
    await openApp(page, serve, 'personas');
    await page.getByRole('button', { name: 'New persona' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Save persona' }).click();
    const name = dialog.getByRole('textbox', { name: 'Name', exact: true });
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(dialog.getByRole('alert')).toHaveCount(0);
    await shot(page, 'e35-persona-field-error');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(page.url().replace(/#.*/, '#/scenarios'));
    await page.getByRole('button', { name: 'New scenario' }).first().click();
    const scenario = page.getByRole('dialog');
    await scenario.getByRole('textbox', { name: 'Name', exact: true }).fill('No situation');
    await scenario.getByRole('button', { name: 'Save scenario' }).click();
    await expect(scenario.getByRole('textbox', { name: /^Situation/ })).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    await expect(scenario.getByRole('alert')).toHaveCount(0);
  });

  test('the connect dialog marks a bad Audio WebSocket URL at its field', async ({ page }) => {
    await openApp(page, serve, 'agents');
    await page.getByRole('button', { name: 'Connect agent' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Connect an agent' });
    await dialog.getByRole('combobox', { name: 'Provider' }).click();
    await page.getByRole('option', { name: 'http', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Bad socket bot');
    await dialog.getByRole('textbox', { name: 'URL of the agent' }).fill('http://127.0.0.1:9/chat');
    const socket = dialog.getByRole('textbox', { name: /^Audio WebSocket URL/ });
    await socket.fill('http://127.0.0.1:9/not-a-socket');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await expect(socket).toHaveAttribute('aria-invalid', 'true');
    await expect(dialog.getByRole('alert')).toHaveCount(0);
    await shot(page, 'e35-connect-field-error');
  });

  test('deleting a persona in use is refused by name before any question', async ({ page }) => {
    const frank = (await inWs('POST', '/personas', { name: 'Frustrated Frank', prompt: 'Late.' }))
      .data.persona.id;
    for (const name of ['Refund', 'Late order'])
      await inWs('POST', '/scenarios', { name, prompt: 'p', personas: [frank] });
    await openApp(page, serve, 'personas');
    await page
      .getByRole('row', { name: /Frustrated Frank/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    const refusal = page.getByRole('dialog', { name: 'Cannot delete persona' });
    await expect(refusal).toContainText(/Persona 'Frustrated Frank' is used by 2 scenarios: /);
    await expect(refusal).toContainText('Late order');
    await expect(page.getByRole('dialog', { name: /Delete the persona/ })).toHaveCount(0);
    await shot(page, 'e35-persona-in-use');
    await refusal.getByRole('button', { name: 'OK' }).click();
    await expect(page.getByRole('row', { name: /Frustrated Frank/ })).toBeVisible();
  });

  test('an http agent: "text only" until its connection names a WebSocket URL; then disconnect', async ({
    page,
  }) => {
    const agent = await api('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'Home bot',
      credentials: { base_url: 'http://127.0.0.1:9/chat' },
    });
    await openApp(page, serve, `agents/${agent.id}`);
    await expect(page.getByText('text only', { exact: true })).toBeVisible();
    await expect(page.getByText('audio calls', { exact: true })).toHaveCount(0);

    await page.getByRole('button', { name: 'Edit connection' }).click();
    const edit = page.getByRole('dialog', { name: /Edit the connection of Home bot/ });
    await edit.getByRole('textbox', { name: 'URL', exact: true }).fill('http://127.0.0.1:9/chat');
    await edit
      .getByRole('textbox', { name: 'Audio WebSocket URL' })
      .fill('ws://127.0.0.1:9/media-stream');
    await edit.getByRole('button', { name: 'Save connection' }).click();
    await expect(edit).toHaveCount(0);
    await expect(page.getByText('audio calls', { exact: true })).toBeVisible();
    expect((await api('GET', `/v1/agents/${agent.id}`)).audio).toEqual({
      available: true,
      reason: null,
    });
    await shot(page, 'e35-agent-audio-chip');

    await page.getByRole('button', { name: 'Disconnect' }).click();
    const ask = page.getByRole('dialog', { name: 'Disconnect the agent "Home bot"?' });
    await expect(ask).toContainText('Its credentials are forgotten');
    await expect(ask).toContainText('Its calls, configuration overrides, versions');
    await shot(page, 'e35-disconnect');
    await ask.getByRole('button', { name: 'Disconnect' }).click();
    await expect
      .poll(async () => (await api('GET', `/v1/agents/${agent.id}`)).status)
      .toBe('disconnected');
    await expect(page.getByText('text only', { exact: true })).toBeVisible();
  });

  test('Settings → Speech: Test voice and Test speech-to-text say what happened', async ({
    page,
  }) => {
    await openApp(page, serve, 'settings/speech');
    const tests = page.getByRole('group', { name: 'Speech tests' });
    await tests.getByRole('button', { name: 'Test voice' }).click();
    await expect(tests.getByRole('status').first()).toContainText(/The system voice spoke \d/);
    await expect(tests.getByLabel('Test voice recording')).toBeVisible();
    await tests.getByRole('button', { name: 'Test speech-to-text' }).click();
    await expect(tests).toContainText('No speech-to-text is configured');

    await api('PATCH', '/v1/settings', {
      speech: {
        stt: { baseUrl: `${speech.url}/v1`, apiKey: 'fake-speech-key', model: 'whisper-1' },
      },
    });
    speech.transcripts.push('Please check the status of my order.');
    await tests.getByRole('button', { name: 'Test speech-to-text' }).click();
    await expect(tests).toContainText(
      'Heard "Please check the status of my order." (100% of the words said)',
    );
    await shot(page, 'e35-speech-tests');
  });

  test('"Send test" on an OS notification says it went to the console, with no desktop session', async ({
    page,
  }) => {
    const tool = await api('POST', '/v1/tools', {
      name: 'crm_lookup',
      type: 'api',
      config: { method: 'GET', url: 'http://127.0.0.1:9/orders' },
    });
    await api('POST', '/v1/alerts', {
      name: 'CRM failing',
      severity: 'high',
      notifications: { os: true },
      condition: {
        type: 'tool_performance',
        toolId: tool.id,
        metric: 'error_rate',
        operator: 'greater_than',
        threshold: 10,
        timeWindow: '15m',
      },
    });
    await openApp(page, serve, 'alerts');
    await page
      .getByRole('row', { name: /CRM failing/ })
      .getByRole('button', { name: 'Send test' })
      .click();
    const result = page.getByRole('status', { name: 'Test notification result' });
    await expect(result).toContainText("os: no desktop session: written to the engine's console");
    await expect(result).not.toContainText('delivered');
  });

  test('Execute says which model is missing, links to Settings, and offers a scorecard without a judge', async ({
    page,
  }) => {
    const metric = (type: string, config: Json) => ({ name: type, category: 'c', type, config });
    const judged = (
      await inWs('POST', '/scorecards', {
        name: 'Judged card',
        metrics: [metric('llm_judge', { criterion: 'Was polite' })],
      })
    ).data.scorecard.id;
    await inWs('POST', '/scorecards', {
      name: 'Plain checks',
      metrics: [metric('contains', { text: 'order' })],
    });
    const persona = (await inWs('POST', '/personas', { name: 'Quiet Quinn', prompt: 'Calm.' })).data
      .persona.id;
    await inWs('POST', '/scenarios', {
      name: 'Needs models',
      prompt: 'Ask about an order.',
      personas: [persona],
      scorecard: judged,
    });
    await openApp(page, serve, 'scenarios');
    await page
      .getByRole('row', { name: /Needs models/ })
      .getByRole('button', { name: 'Execute' })
      .click();
    const note = page.getByRole('note', { name: 'Model needed' });
    await expect(note).toContainText('a model plays the caller');
    await expect(note).toContainText('The scorecard “Judged card” has an llm_judge metric');
    await shot(page, 'e35-execute-guidance');
    await note.getByRole('button', { name: 'Use “Plain checks”' }).click();
    await expect(note).not.toContainText('llm_judge');
    await expect(note).toContainText('a model plays the caller');
    await note.getByRole('button', { name: 'Open Settings → Language models' }).click();
    await expect(page).toHaveURL(/#\/settings\/models$/);
    await expect(page.getByRole('region', { name: 'Language models' })).toBeInViewport();
  });
});
