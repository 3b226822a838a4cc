import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
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
 * A QA tester's first session, through the interface only: connect an agent, create and test a
 * tool, create a persona, a scorecard and a scenario, execute it and watch it finish, read a
 * transcript, schedule it, and set up an alert whose test notification reaches a mailbox.
 */
test.describe('the interface, end to end', () => {
  let serve: ServeHandle;
  let providers: FakeProviders;
  let target: Target;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;

  test.beforeAll(async () => {
    [providers, target, smtp, brain] = await Promise.all([
      startFakeProviders(),
      startTarget(),
      startSmtp(),
      startFakeBrain(),
    ]);
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
    await Promise.all([providers?.stop(), target?.stop(), smtp?.stop(), brain?.stop()]);
  });

  test('connect, build, execute, read, schedule, alert', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Refusals the walk provokes on purpose are answered 400; anything else is a fault.
    page.on(
      'response',
      (r) =>
        r.status() >= 400 &&
        r.status() !== 400 &&
        errors.push(`${r.status()} ${r.request().method()} ${r.url()}`),
    );
    page.on(
      'console',
      (m) =>
        m.type() === 'error' &&
        !m.text().startsWith('Failed to load resource') &&
        errors.push(m.text()),
    );

    await openApp(page, serve);
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    await shot(page, '01-overview-empty');

    // Connect an agent; a wrong key is answered where it was typed.
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
    await page.getByLabel('Overrides').fill('{"model": {"temperature": 0.9}}');
    await page.getByRole('button', { name: 'Save overrides' }).click();
    const temperature = page.getByRole('row', { name: /model\.temperature/ });
    await expect(temperature).toContainText('override');
    await expect(temperature).toContainText('0.3');
    await expect(temperature).toContainText('0.9');
    expect(providers.writes.filter((w) => !w.includes('/chat'))).toEqual([]);
    await shot(page, '03-agent-detail');

    // A tool: created in the editor, a bad definition refused at the field, then tested for real.
    await section(page, 'Tools');
    await page.getByRole('button', { name: 'New tool' }).click();
    const editor = page.getByRole('dialog');
    await editor.getByLabel('Name', { exact: true }).fill('order_status');
    await editor.getByLabel('Description').fill('Looks up an order');
    const definition = editor.getByLabel(/Definition/);
    await definition.fill(
      JSON.stringify({
        config: { url: `${target.url}/orders/{orderId}`, method: 'GET' },
        parameters: [
          { name: 'orderId', type: 'string', required: true, description: 'The order number' },
        ],
        responseMapping: { status: 'order.status', tracking: 'order.tracking' },
      }),
    );
    await editor.getByRole('button', { name: 'Save tool' }).click();
    await expect(page.getByRole('heading', { name: 'Tool: order_status' })).toBeVisible();
    await page.getByLabel('orderId *').fill('A1');
    await page.getByRole('button', { name: 'Run test' }).click();
    await expect(page.getByLabel('Test result')).toContainText('Success');
    await expect(page.getByLabel('Test result')).toContainText('shipped');
    await shot(page, '04-tool-test');

    // A persona, a scorecard and a scripted scenario against the agent.
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

    // Models in Settings, the agent switched to its replica, and a model-played caller judged.
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
    await models.getByRole('button', { name: 'Test the judge model' }).click();
    await expect(models.getByRole('group', { name: 'judge' }).getByRole('status')).toContainText(
      'fake answered',
    );
    await section(page, 'Agents');
    await page.getByRole('cell', { name: 'Support Sam' }).click();
    await page.getByRole('button', { name: 'Test the connection to Support Sam' }).click();
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

    // A schedule for it, with a bad periodicity refused at the field first.
    await section(page, 'Schedules');
    await page.getByRole('button', { name: 'New schedule' }).click();
    const sched = page.getByRole('dialog');
    await sched.getByLabel('Name', { exact: true }).fill('Nightly late order');
    await sched.getByLabel('Scenario').click();
    await page.getByRole('option', { name: 'Late order' }).click();
    await expect(page.getByRole('listbox')).toHaveCount(0);
    await sched.getByLabel('Periodicity').fill('every full moon');
    await sched.getByRole('button', { name: 'Save schedule' }).click();
    await expect(sched.getByLabel('Periodicity')).toHaveAttribute('aria-invalid', 'true');
    await sched.getByLabel('Periodicity').fill('0 2 * * *');
    await sched.getByRole('button', { name: 'Save schedule' }).click();
    await expect(page.getByRole('table', { name: 'Schedules' })).toContainText(
      'Nightly late order',
    );
    // Run it now: its Runs row shows the execution's state, not a placeholder.
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('button', { name: 'Runs' }).click();
    await expect(page.getByLabel('Runs')).toContainText(/manual · (queued|running|completed)/);
    await shot(page, '11-schedules');

    // SMTP in settings, then an alert whose test notification arrives by e-mail. The settings
    // answer comes late, as on a busy machine: what is typed meanwhile must not be reset by it.
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
    await alert.getByLabel('Tool (id or name)').fill('order_status');
    await alert.getByLabel('E-mail to (comma-separated)').fill('oncall@example.com');
    await alert.getByRole('button', { name: 'Save alert' }).click();
    await expect(page.getByRole('table', { name: 'Alerts' })).toContainText('Order tool failing');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect(page.getByRole('status', { name: 'Test notification result' })).toContainText(
      'email: delivered',
    );
    expect(smtp.mails.length).toBe(1);
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

    // A second workspace from the app bar starts empty; switching back shows the first again.
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

    // Dark theme, and no error logged by the page on the way.
    await page.getByRole('button', { name: 'Switch theme' }).click();
    await section(page, 'Overview');
    await expect(page.getByRole('list', { name: 'Recent executions' })).toContainText('completed');
    await shot(page, '14-overview-dark');
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
