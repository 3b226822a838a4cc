import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '../helpers/json.js';
import { expect, openApp, section, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * The comparison screen, as a tester reaches it: two executions of one scenario where the candidate
 * regresses (the agent stops saying the order has shipped), "Compare with previous run" from the
 * candidate's page, the verdict and the cases, a case's paired transcripts side by side, the
 * scorecard edit between the runs rescored away, the "Compare…" dialog, and the stored list.
 */

/** A deployed agent on 127.0.0.1 (the http provider's simple format) that can be made worse. */
async function startSwitchableAgent() {
  const state = { good: true };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += String(c)));
    req.on('end', () => {
      const body = (raw ? JSON.parse(raw) : {}) as {
        messages?: { role: string; content: string }[];
      };
      const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
      const bye = /bye|thank/i.test(String(last?.content));
      const reply = bye
        ? 'Goodbye!'
        : state.good
          ? 'Your order has shipped.'
          : 'Sorry, I cannot look up orders right now.';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ reply, ended: bye }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface Made {
  baselineId: string;
  candidateId: string;
}

/** The HTTP API with the key serve was started with; answers the body, throws on an error. */
function apiOf(serve: ServeHandle) {
  return async (method: string, path: string, body?: object): Promise<Json> => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${serve.key}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json: Json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/**
 * A scenario of two personas run 6 times each with the good agent (baseline), then, after the
 * scorecard gains a metric (a test edit), with the worse agent (candidate).
 */
async function makeRuns(serve: ServeHandle, agent: { url: string; state: { good: boolean } }) {
  const api = apiOf(serve);
  const workspaces = await api('GET', '/api/v1/workspaces');
  const ws = `/api/v1/workspaces/${workspaces.data.workspaces[0].id as string}`;
  const connected = await api('POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: 'Order bot',
    credentials: { base_url: `${agent.url}/simple` },
  });
  const persona = async (name: string) =>
    (await api('POST', `${ws}/personas`, { name, prompt: 'Calm.' })).data.persona.id as string;
  const shipped = {
    name: 'Says shipped',
    category: 'accuracy',
    type: 'contains',
    config: { text: 'shipped' },
  };
  const card = await api('POST', `${ws}/scorecards`, { name: 'Orders', metrics: [shipped] });
  const cardId = card.data.scorecard.id as string;
  const scenario = await api('POST', `${ws}/scenarios`, {
    name: 'Where is my order',
    prompt: 'Ask where your order is.',
    personas: [await persona('Dana'), await persona('Frank')],
    targetAgents: [connected.id],
    scorecard: cardId,
    script: [{ say: 'Hello, where is my order?' }, { say: 'Thank you, goodbye.' }],
  });
  const run = async () => {
    const started = await api(
      'POST',
      `${ws}/scenarios/${scenario.data.scenario.id as string}/execute`,
      { runs: 6 },
    );
    const id = started.data.execution.id as string;
    const done = await api('GET', `${ws}/executions/${id}?wait=120`);
    expect(done.data.execution.status).toBe('completed');
    return id;
  };
  const baselineId = await run();
  await api('PUT', `${ws}/scorecards/${cardId}`, {
    metrics: [
      shipped,
      { name: 'Says goodbye', category: 'accuracy', type: 'contains', config: { text: 'goodbye' } },
    ],
  });
  agent.state.good = false;
  const candidateId = await run();
  return { baselineId, candidateId };
}

test.describe('comparing two runs', () => {
  let serve: ServeHandle;
  let agent: Awaited<ReturnType<typeof startSwitchableAgent>>;
  let made: Made;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    agent = await startSwitchableAgent();
    serve = await startServe();
    made = await makeRuns(serve, agent);
  });
  test.afterAll(async () => {
    await serve?.stop();
    await agent?.stop();
  });
  test.afterEach(async ({ page }) => {
    // The page's event stream would hold serve open: the page goes first.
    await page.close();
  });

  test('compare with the previous run: the verdict, the cases, the paired transcripts, rescoring, the list', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1280, height: 720 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    // The first run has nothing before it: the button says why it cannot compare.
    await openApp(page, serve, `executions/${made.baselineId}`);
    await expect(page.getByRole('heading', { level: 1, name: /^Execution: / })).toBeVisible();
    await expect(page.getByTestId('compare-unavailable')).toHaveText(
      'No earlier ended execution of this scenario to compare with',
    );
    await expect(page.getByRole('button', { name: 'Compare with previous run' })).toBeDisabled();

    // The second run compares with the first.
    await page.evaluate((p) => (location.hash = `#/${p}`), `executions/${made.candidateId}`);
    const compare = page.getByRole('button', { name: 'Compare with previous run' });
    await expect(compare).toBeEnabled();
    await compare.click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Comparison: Where is my order' }),
    ).toBeVisible();

    const overall = page.getByRole('region', { name: 'Overall verdict' });
    await expect(overall.locator('[data-verdict]')).toHaveText('Regressed');
    await expect(overall.getByTestId('overall-line')).toContainText(
      'Pass rate 100% → 0% over 12 pairs',
    );
    await expect(overall).toContainText('Pass-rate difference: −100 points, 95% CI');
    await expect(page.getByRole('region', { name: 'Baseline' })).toContainText('12 simulations');
    await expect(page.getByRole('region', { name: 'Candidate' })).toContainText('12 simulations');

    // Both cases regressed, each drawn with its two interval bars.
    const cases = page.getByRole('table', { name: 'Cases' });
    await expect(cases.getByRole('row', { name: /Where is my order × Dana/ })).toContainText(
      'Regressed',
    );
    await expect(cases.getByRole('row', { name: /Where is my order × Frank/ })).toContainText(
      'Regressed',
    );
    await expect(cases.getByTestId('interval-bars')).toHaveCount(2);
    await expect(page.getByTestId('sample-size')).toContainText('To detect a 10-point change:');
    await expect(page.getByRole('table', { name: 'Metrics' })).toContainText('Says shipped');

    // The scorecard changed between the runs: a warning, and the way out.
    const warning = page
      .getByRole('alert')
      .filter({ hasText: 'did not run under the same conditions' });
    await expect(warning).toContainText('scorecard');
    await shot(page, 'comparison-regressed');

    // A case's paired transcripts, baseline left, candidate right, run by run.
    await cases.getByRole('row', { name: /× Dana/ }).click();
    const dialog = page.getByRole('dialog', {
      name: 'Paired transcripts: Where is my order × Dana',
    });
    const run1 = dialog.getByRole('region', { name: 'Run 1' });
    await expect(run1.getByRole('region', { name: 'baseline transcript' })).toContainText(
      'Your order has shipped.',
    );
    await expect(run1.getByRole('region', { name: 'candidate transcript' })).toContainText(
      'Sorry, I cannot look up orders right now.',
    );
    await expect(dialog.getByRole('region', { name: /^Run \d$/ })).toHaveCount(6);
    const left = await run1.getByRole('region', { name: 'baseline transcript' }).boundingBox();
    const right = await run1.getByRole('region', { name: 'candidate transcript' }).boundingBox();
    expect(left!.x).toBeLessThan(right!.x);
    await shot(page, 'comparison-paired-transcripts');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();

    // Rescore baseline: a new comparison, the baseline judged with the candidate's scorecard.
    const firstUrl = page.url();
    await warning.getByRole('button', { name: 'Rescore baseline' }).click();
    await expect.poll(() => page.url()).not.toBe(firstUrl);
    await expect(page.getByRole('region', { name: 'Baseline (rescored)' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Overall verdict' })).toContainText(
      "scored again with the candidate's scorecard",
    );
    await expect(
      page.getByRole('region', { name: 'Overall verdict' }).locator('[data-verdict]'),
    ).toHaveText('Regressed');
    await expect(page.getByRole('button', { name: 'Rescore baseline' })).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Metrics' })).toContainText('Says goodbye');
    await shot(page, 'comparison-rescored');

    // Stored comparisons, newest first (the other test's may be there too, made before these).
    await section(page, 'Comparisons');
    const list = page.getByRole('table', { name: 'Comparisons' });
    await expect(list.getByRole('row').nth(2)).toBeVisible();
    await expect(list.getByRole('row').nth(1)).toContainText('rescored');
    await expect(list.getByRole('row').nth(1)).toContainText('Regressed');
    await expect(list.getByRole('row').nth(2)).not.toContainText('rescored');
    await shot(page, 'comparisons-list');
    expect(errors).toEqual([]);
  });

  test('"Compare…": pick the sides among the ended executions', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openApp(page, serve, 'comparisons');
    await expect(page.getByRole('heading', { level: 1, name: 'Comparisons' })).toBeVisible();
    await page.getByRole('button', { name: 'Compare…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Compare executions' });
    const pick = async (field: string, id: string) => {
      await dialog.getByLabel(field).click();
      await page.getByRole('option', { name: new RegExp(`${id.slice(-8)}$`) }).click();
      await page.keyboard.press('Escape');
      await expect(page.getByRole('listbox')).toHaveCount(0);
    };
    // Candidate as baseline and back: the improvement reads as one.
    await pick('Baseline executions', made.candidateId);
    await pick('Candidate executions', made.baselineId);
    await dialog.getByRole('checkbox', { name: /Rescore baseline/ }).check();
    await shot(page, 'comparison-pick-dialog');
    await dialog.getByRole('button', { name: 'Compare', exact: true }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Comparison: Where is my order' }),
    ).toBeVisible();
    await expect(
      page.getByRole('region', { name: 'Overall verdict' }).locator('[data-verdict]'),
    ).toHaveText('Improved');
  });
});
