import type { Page } from '@playwright/test';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { Json } from '../helpers/json.js';
import { startSmtp } from '../helpers/receivers.js';
import { startTarget, type Target } from '../helpers/target.js';
import {
  expect,
  openApp,
  section,
  shot,
  startScenario,
  startServe,
  test,
  type ServeHandle,
} from './fixtures.js';

/**
 * A QA tester's first sessions, through the interface only, one journey per test: connect an
 * agent, create and test a tool, build and execute a scenario and read a transcript, judge a
 * model-played caller against the agent's replica, schedule a scenario, set up an alert whose
 * test notification reaches a mailbox, and open a second workspace. Each journey starts its own
 * engine and makes, through its operations, what it does not walk through itself.
 */
test.describe('the interface, end to end', () => {
  let serve: ServeHandle;
  let providers: FakeProviders;
  let target: Target;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let errors: string[];

  /** An operation of the engine, as the page invokes it, with the key serve was started with. */
  const invoke = async (name: string, input: object = {}): Promise<Json> => {
    const res = await fetch(`${serve.url}/v1/operations/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body: Json = await res.json();
    if (!res.ok) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
    return body.data;
  };
  const defaultWorkspace = async (): Promise<string> =>
    (await invoke('workspaces.list')).workspaces[0].id as string;
  /** "Support Sam", the fake provider's Vapi agent. */
  const connectSam = async (): Promise<string> =>
    (
      await invoke('agents.connect', {
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: providers.url },
      })
    ).id as string;
  const ORDER_TOOL = () => ({
    name: 'order_status',
    description: 'Looks up an order',
    type: 'api',
    config: { url: `${target.url}/orders/{orderId}`, method: 'GET' },
    parameters: [
      { name: 'orderId', type: 'string', required: true, description: 'The order number' },
    ],
    responseMapping: { status: 'order.status', tracking: 'order.tracking' },
  });
  const createFrank = async (workspace_id: string): Promise<string> =>
    (
      await invoke('personas.create', {
        workspace_id,
        name: 'Frank',
        prompt: 'A busy shop owner who wants his order.',
      })
    ).persona.id as string;

  test.beforeAll(async () => {
    [providers, target, smtp, brain] = await Promise.all([
      startFakeProviders(),
      startTarget(),
      startSmtp(),
      startFakeBrain(),
    ]);
  });
  test.afterAll(async () => {
    await Promise.all([providers?.stop(), target?.stop(), smtp?.stop(), brain?.stop()]);
  });
  test.beforeEach(async ({ page }) => {
    serve = await startServe();
    errors = watchErrors(page);
  });
  test.afterEach(async ({ page }) => {
    // The page's event stream would hold serve open: the page goes first.
    await page.close();
    await serve?.stop();
  });

  test('connect an agent, a wrong key answered at the field, and override it locally', async ({
    page,
  }) => {
    await openApp(page, serve);
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    await shot(page, '01-overview-empty');

    await section(page, 'Agents');
    await page.getByRole('button', { name: 'Connect agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect an agent' });
    await dialog.getByLabel('Agent id').fill('asst_1');
    await dialog.getByLabel('API key').fill('wrong-key');
    await dialog.getByLabel('Base URL (regional hosts only)').fill(providers.url);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await expect(dialog.getByRole('alert')).toContainText('refused the API key');
    await shot(page, '02-connect-error');
    await dialog.getByLabel('API key').fill(GOOD_KEY);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('table', { name: 'Agents' })).toContainText('Support Sam');
    await page.getByRole('cell', { name: 'Support Sam' }).click();
    await expect(page.getByRole('heading', { name: 'Agent: Support Sam' })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Configuration' })).toContainText(
      'You are Sam, a support agent.',
    );
    // A local override: the synced value stays beside it, and the agent is never written to.
    await page.getByRole('switch', { name: 'Local overrides as JSON' }).check();
    await page.getByLabel('Overrides', { exact: true }).fill('{"model": {"temperature": 0.9}}');
    await page.getByRole('button', { name: 'Save overrides' }).click();
    const temperature = page.getByRole('row', { name: /model\.temperature/ });
    await expect(temperature).toContainText('override');
    await expect(temperature).toContainText('0.3');
    await expect(temperature).toContainText('0.9');
    expect(providers.writes.filter((w) => !w.includes('/chat'))).toEqual([]);
    await shot(page, '03-agent-detail');
    expect(errors).toEqual([]);
  });

  test('create a tool in the editor and test it for real', async ({ page }) => {
    await openApp(page, serve);
    await section(page, 'Tools');
    await page.getByRole('button', { name: 'New tool' }).click();
    const editor = page.getByRole('dialog');
    await editor.getByLabel('Name', { exact: true }).fill('order_status');
    await editor.getByLabel('Description').fill('Looks up an order');
    const { name: _n, description: _d, type: _t, ...definition } = ORDER_TOOL();
    await editor.getByRole('switch', { name: 'Tool definition as JSON' }).check();
    await editor.getByLabel(/Definition/).fill(JSON.stringify(definition));
    await editor.getByRole('button', { name: 'Save tool' }).click();
    await expect(page.getByRole('heading', { name: 'Tool: order_status' })).toBeVisible();
    await page.getByLabel('orderId *').fill('A1');
    await page.getByRole('button', { name: 'Run test' }).click();
    await expect(page.getByLabel('Test result')).toContainText('Success');
    await expect(page.getByLabel('Test result')).toContainText('shipped');
    await shot(page, '04-tool-test');
    expect(errors).toEqual([]);
  });

  test('build a persona, a scorecard and a scenario, execute it and read a transcript', async ({
    page,
  }) => {
    await connectSam();
    await invoke('tools.create', ORDER_TOOL());
    await openApp(page, serve);
    await buildAndExecute(page);

    // Results, then a transcript with caller, agent and tool turns and each metric's reasoning.
    const list = page.getByTestId('simulation-list');
    await expect(list).toHaveAttribute('data-total', '3');
    await shot(page, '08-execution-results');
    await list.getByRole('row').first().click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript).toContainText('Where is order Z9?');
    await expect(transcript).toContainText('Your order Z9 has shipped.');
    await expect(transcript.locator('[data-role="tool"]').first()).toContainText('order_status');
    await expect(page.getByText('Says it shipped')).toBeVisible();
    await shot(page, '09-transcript');

    // Dark theme: the overview lists the execution that completed.
    await page.getByRole('button', { name: 'Switch theme' }).click();
    await section(page, 'Overview');
    await expect(page.getByRole('list', { name: 'Recent executions' })).toContainText('completed');
    await shot(page, '14-overview-dark');
    expect(errors).toEqual([]);
  });

  test('models in Settings, the agent on its replica, a model-played caller judged', async ({
    page,
  }) => {
    await connectSam();
    await invoke('tools.create', ORDER_TOOL());
    await createFrank(await defaultWorkspace());
    await openApp(page, serve);
    await section(page, 'Settings');
    const models = page.getByRole('region', { name: 'Language models' });
    for (const role of ['caller', 'judge', 'replica']) {
      const row = models.getByRole('group', { name: role });
      await row.getByLabel('Base URL').fill(brain.url);
      await row.getByLabel('Model', { exact: true }).fill('fake');
      await row.getByLabel('API key').fill('sk-fake-123456');
      await row.getByRole('button', { name: `Save ${role}` }).click();
      await expect(models.getByRole('group', { name: role }).getByLabel('API key')).toHaveValue(
        /^\*+3456$|3456$/,
      );
    }
    // The saved judge answers a one-word call: Test connection says so.
    await models.getByRole('button', { name: 'Test connection to the judge model' }).click();
    await expect(models.getByRole('group', { name: 'judge' }).getByRole('status')).toContainText(
      'fake answered',
    );
    await section(page, 'Agents');
    await page.getByRole('cell', { name: 'Support Sam' }).click();
    await page.getByRole('button', { name: 'Test connection to Support Sam' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'answered' })).toContainText(
      /vapi answered \(\d+ ms\)/,
    );
    await shot(page, '10a-agent-connection');
    await page.getByRole('combobox', { name: 'Simulations reach it by' }).click();
    await page.getByRole('option', { name: /^replica/ }).click();
    await expect(page.getByRole('combobox', { name: 'Simulations reach it by' })).toContainText(
      'replica',
    );
    const free = await startScenario(page, {
      name: 'Where is C3',
      situation: 'Your order C3 is late and you want to know where it is.',
      persona: 'Frank',
      agent: /Support Sam/,
    });
    await free.getByLabel('Expected outcome (judged)').fill('The caller learns where the order is');
    await free.getByRole('button', { name: 'Save scenario' }).click();
    await page
      .getByRole('row', { name: /Where is C3/ })
      .getByRole('button', { name: 'Execute' })
      .click();
    const modelRun = page.getByRole('dialog', { name: /Execute/ });
    await modelRun.getByRole('button', { name: 'Start' }).click();
    await expect(modelRun.getByTestId('execution-progress')).toContainText('1 of 1 ended', {
      timeout: 30_000,
    });
    await expect(modelRun).toContainText('Pass rate 100%');
    await modelRun.getByRole('button', { name: 'Open results' }).click();
    await page.getByTestId('simulation-list').getByRole('row').first().click();
    const judged = page.getByRole('log', { name: 'Transcript' });
    await expect(judged).toContainText('Hi, where is my order C3?');
    await expect(judged.locator('[data-role="tool"]')).toContainText('TRK');
    await expect(page.getByText('The agent gave the tracking number.')).toBeVisible();
    await shot(page, '10-replica-transcript');
    expect(errors).toEqual([]);
  });

  test('schedule a scenario, a bad periodicity refused at the field, and run it now', async ({
    page,
  }) => {
    const workspace_id = await defaultWorkspace();
    const [agent, persona] = await Promise.all([connectSam(), createFrank(workspace_id)]);
    await invoke('scenarios.create', {
      workspace_id,
      name: 'Late order',
      prompt: 'Order A1 is late.',
      personas: [persona],
      targetAgents: [agent],
      script: [{ say: 'Where is order A1?' }, { say: 'Thanks, bye.' }],
    });
    await openApp(page, serve);
    await section(page, 'Schedules');
    await page.getByRole('button', { name: 'New schedule' }).click();
    const sched = page.getByRole('dialog');
    await sched.getByLabel('Name', { exact: true }).fill('Nightly late order');
    await sched.getByLabel('Scenario').click();
    await page.getByRole('option', { name: 'Late order' }).click();
    await expect(page.getByRole('listbox')).toHaveCount(0);
    // A periodicity the engine refuses is said under the field as it is typed; Save waits.
    await sched.getByLabel('Periodicity').fill('every full moon');
    await expect(sched.getByLabel('Periodicity')).toHaveAttribute('aria-invalid', 'true');
    await expect(sched.getByRole('button', { name: 'Save schedule' })).toBeDisabled();
    await sched.getByLabel('Periodicity').fill('0 2 * * *');
    await expect(sched).toContainText('every day at 02:00');
    await sched.getByRole('button', { name: 'Save schedule' }).click();
    await expect(page.getByRole('table', { name: 'Schedules' })).toContainText(
      'Nightly late order',
    );
    // Run it now: its Runs row shows the execution's state, not a placeholder.
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('button', { name: 'Runs' }).click();
    await expect(page.getByLabel('Runs')).toContainText(/manual · (queued|running|completed)/);
    await shot(page, '11-schedules');
    expect(errors).toEqual([]);
  });

  test('SMTP in Settings, an alert whose test reaches a mailbox, deleting asks first', async ({
    page,
  }) => {
    await invoke('tools.create', ORDER_TOOL());
    const mailsBefore = smtp.mails.length;
    await openApp(page, serve);
    // The settings answer comes late, as on a busy machine: what is typed meanwhile must not be
    // reset by it.
    await page.route('**/v1/operations/settings.get', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue();
    });
    const answered = page.waitForResponse('**/v1/operations/settings.get');
    await section(page, 'Settings');
    const mail = page.getByRole('region', { name: 'E-mail (SMTP)' });
    await mail.getByLabel('host').fill('127.0.0.1');
    await answered;
    await expect(mail.getByLabel('host')).toHaveValue('127.0.0.1');
    await mail.getByLabel('port').fill(String(smtp.port));
    await mail.getByLabel('from').fill('Callbench <qa@example.com>');
    await mail.getByRole('button', { name: 'Save SMTP' }).click();
    await expect(mail.getByRole('alert')).toHaveCount(0);
    await page.unrouteAll({ behavior: 'wait' });
    await shot(page, '12-settings');

    await section(page, 'Alerts');
    await page.getByRole('button', { name: 'New alert' }).click();
    const alert = page.getByRole('dialog');
    await alert.getByLabel('Name', { exact: true }).fill('Order tool failing');
    await alert.getByLabel('Tool', { exact: true }).click();
    await page.getByRole('option', { name: 'order_status', exact: true }).click();
    await expect(alert.getByLabel('Threshold')).toHaveAccessibleDescription('0 to 100');
    await alert.getByLabel('E-mail to (comma-separated)').fill('oncall@example.com');
    await alert.getByRole('button', { name: 'Save alert' }).click();
    await expect(page.getByRole('table', { name: 'Alerts' })).toContainText('Order tool failing');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect(page.getByRole('status', { name: 'Test notification result' })).toContainText(
      'email: delivered',
    );
    expect(smtp.mails.length).toBe(mailsBefore + 1);
    await shot(page, '13-alert-test');

    // Deleting asks first, naming what goes; "Keep it" keeps it.
    const alertRow = page.getByRole('row', { name: /Order tool failing/ });
    await alertRow.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the alert "Order tool failing"?' });
    await expect(confirm).toContainText('its history of events goes with it');
    await shot(page, '13a-confirm-delete');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByRole('table', { name: 'Alerts' })).toContainText('Order tool failing');

    // The tool the alert watches cannot go: the refusal, naming who uses it, comes before the
    // "for good?" question, and the list stays.
    await section(page, 'Tools');
    await page
      .getByRole('row', { name: /order_status/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    const refusal = page.getByRole('dialog', { name: 'Cannot delete tool' });
    await expect(refusal).toContainText('watched by 1 alert: Order tool failing');
    await expect(page.getByRole('dialog', { name: /Delete the tool/ })).toHaveCount(0);
    await shot(page, '13b-tool-in-use');
    await refusal.getByRole('button', { name: 'OK' }).click();
    await expect(page.getByRole('table', { name: 'Tools' })).toContainText('order_status');
    expect(errors.splice(0)).toEqual([expect.stringMatching(/^409 POST .*tools\.delete$/)]);
    expect(errors).toEqual([]);
  });

  test('a second workspace from the app bar starts empty; switching back shows the first', async ({
    page,
  }) => {
    await createFrank(await defaultWorkspace());
    await openApp(page, serve);
    await section(page, 'Personas');
    await expect(page.getByRole('table', { name: 'Personas' })).toContainText('Frank');
    await page.getByRole('combobox', { name: 'Workspace' }).click();
    await page.getByRole('option', { name: 'New workspace…' }).click();
    const newWs = page.getByRole('dialog', { name: 'New workspace' });
    await newWs.getByLabel('Name').fill('Staging');
    await newWs.getByRole('button', { name: 'Create workspace' }).click();
    await expect(page.getByRole('combobox', { name: 'Workspace' })).toContainText('Staging');
    await section(page, 'Personas');
    await expect(page.getByRole('table', { name: 'Personas' })).not.toContainText('Frank');
    await shot(page, '13b-new-workspace');
    await page.getByRole('combobox', { name: 'Workspace' }).click();
    await page.getByRole('option', { name: 'Default workspace' }).click();
    await expect(page.getByRole('table', { name: 'Personas' })).toContainText('Frank');
    expect(errors).toEqual([]);
  });

  test('without a key the page asks for one, and a wrong one is refused', async ({ page }) => {
    // A fresh page has no session: the page, which holds no secret, asks for a key.
    await page.goto(serve.url);
    await page.getByLabel('API key').fill('cbk_wrong');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByText(/not a valid API key/)).toBeVisible();
    await page.getByLabel('API key').fill(serve.key);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.locator('body[data-ready="true"]')).toBeVisible();
  });
});

/** Faults the page shows: errors thrown or logged, and answers above 400 (400s are provoked). */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on(
    'response',
    (r) => r.status() > 400 && errors.push(`${r.status()} ${r.request().method()} ${r.url()}`),
  );
  page.on(
    'console',
    (m) =>
      m.type() === 'error' &&
      !m.text().startsWith('Failed to load resource') &&
      errors.push(m.text()),
  );
  return errors;
}

/** A persona, a scorecard and a scripted scenario against Support Sam, executed three times. */
async function buildAndExecute(page: Page): Promise<void> {
  await section(page, 'Personas');
  await page.getByRole('button', { name: 'New persona' }).click();
  await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Frank');
  await page
    .getByRole('dialog')
    .getByLabel('Who they are and how they speak')
    .fill('A busy shop owner who wants his order.');
  await page.getByRole('button', { name: 'Save persona' }).click();
  await expect(page.getByRole('table', { name: 'Personas' })).toContainText('Frank');
  await shot(page, '05-personas');

  await section(page, 'Scorecards');
  await page.getByRole('button', { name: 'New scorecard' }).click();
  await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Order support');
  await page.getByRole('switch', { name: 'Scorecard metrics as JSON' }).check();
  await page
    .getByRole('dialog')
    .getByLabel(/^Metrics/)
    .fill(
      JSON.stringify([
        {
          name: 'Says it shipped',
          category: 'accuracy',
          type: 'contains',
          config: { text: 'shipped' },
        },
      ]),
    );
  await page.getByRole('button', { name: 'Save scorecard' }).click();
  await expect(page.getByRole('table', { name: 'Scorecards' })).toContainText('Order support');

  const scenario = await startScenario(page, {
    name: 'Late order',
    situation: 'Order {{order_id}} is late.',
    persona: 'Frank',
    agent: /Support Sam/,
  });
  await scenario.getByLabel('Scorecard').click();
  await page.getByRole('option', { name: 'Order support' }).click();
  await scenario.getByRole('switch', { name: 'Prompt variables as JSON' }).check();
  await scenario.getByRole('switch', { name: 'Caller script as JSON' }).check();
  await scenario
    .getByLabel(/^Variables/)
    .fill('[{"name": "order_id", "type": "string", "defaultValue": "A1"}]');
  await scenario
    .getByLabel(/^Script/)
    .fill('[{"say": "Where is order {{order_id}}?"}, {"say": "Thanks, bye."}]');
  await shot(page, '06-scenario-editor');
  await scenario.getByRole('button', { name: 'Save scenario' }).click();
  await expect(page.getByRole('table', { name: 'Scenarios' })).toContainText('Late order');

  // Execute: the dialog asks for the variables, then the progress bar runs to the end.
  await page
    .getByRole('row', { name: /Late order/ })
    .getByRole('button', { name: 'Execute' })
    .click();
  const run = page.getByRole('dialog', { name: /Execute/ });
  await run.getByLabel('order_id').fill('Z9');
  await run.getByLabel('Runs per persona and agent').fill('3');
  await run.getByRole('button', { name: 'Start' }).click();
  await expect(run.getByTestId('execution-progress')).toContainText('3 of 3 ended', {
    timeout: 30_000,
  });
  await expect(run.getByRole('progressbar', { name: 'Simulations ended' })).toHaveAttribute(
    'aria-valuenow',
    '100',
  );
  await expect(run).toContainText('Pass rate 100%');
  // The list behind follows live: the scenario's simulations and pass rate.
  await expect(
    page.getByRole('table', { name: 'Scenarios', includeHidden: true }).getByRole('row', {
      name: /Late order/,
      includeHidden: true,
    }),
  ).toContainText(/3\s*100\s*100%/);
  await shot(page, '07-execution-done');
  await run.getByRole('button', { name: 'Open results' }).click();
}
