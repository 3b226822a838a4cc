import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeBrain } from '../helpers/fake-brain.js';
import {
  GOOD_KEY,
  T0,
  startFakeProviders,
  vapiCall,
  type FakeProviders,
} from '../helpers/fake-providers.js';
import type { Json } from '../helpers/json.js';
import { expect, openApp, section, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * Human review and judge calibration on screen (#37): a text execution judged by the fake model,
 * its llm_judge results labelled from the keyboard (p, f, n; j and k to move; keys typed in the
 * note stay in the note), the calibration of the scorecard counting those labels, then a
 * requirement added to a judged metric (the calibration turns stale) and a reference answer to a
 * script line, both saved.
 */

/** A deployed agent on 127.0.0.1 (the http provider's simple format): gives the tracking number. */
async function startOrderAgent() {
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += String(c)));
    req.on('end', () => {
      const body = (raw ? JSON.parse(raw) : {}) as {
        messages?: { role: string; content: string }[];
      };
      const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
      const bye = /bye|thank/i.test(String(last?.content));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          reply: bye ? 'Goodbye!' : 'Your order has shipped. Tracking TRK1 arrives Friday.',
          ended: bye,
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const JUDGED = ['Polite', 'Gives the status'];

/**
 * The fake's Vapi call `i` moved to `minutesAgo` before now (an import reads the last 30 days),
 * ending on the agent giving a tracking number (the fake judge's evidence).
 */
function recentCall(i: number, minutesAgo: number): Json {
  const base = vapiCall(i);
  const shift = Date.now() - minutesAgo * 60_000 - (T0 + i * 60_000);
  const at = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
  const messages = (base.messages as Json[]).map((m) => ({
    ...m,
    ...(typeof m.time === 'number' ? { time: m.time + shift } : {}),
    ...(typeof m.endTime === 'number' ? { endTime: m.endTime + shift } : {}),
  }));
  messages.at(-1)!.message = `It has shipped, tracking number TRK${i}.`;
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

test.describe('review and calibration', () => {
  let serve: ServeHandle;
  let agent: Awaited<ReturnType<typeof startOrderAgent>>;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let providers: FakeProviders;
  let ws = '';
  const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${serve.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${serve.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const inWs = (method: string, path: string, body?: unknown) =>
    api(method, `/api/v1/workspaces/${ws}${path}`, body);

  /** A scorecard of two judged metrics and a check, and a scenario run 3 times (6 judged results). */
  async function judgedRuns() {
    const connected = await api('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'Order bot',
      credentials: { base_url: `${agent.url}/simple` },
    });
    const persona = await inWs('POST', '/personas', { name: 'Dana', prompt: 'Calm.' });
    const card = await inWs('POST', '/scorecards', {
      name: 'Orders',
      passThreshold: 70,
      metrics: [
        { name: JUDGED[0], type: 'llm_judge', config: { criterion: 'The agent is polite' } },
        { name: JUDGED[1], type: 'llm_judge', config: { criterion: 'The agent gives the status' } },
        { name: 'Says shipped', type: 'contains', config: { text: 'shipped' } },
      ],
    });
    const scenario = await inWs('POST', '/scenarios', {
      name: 'Where is my order',
      prompt: 'Ask where your order is.',
      personas: [persona.data.persona.id],
      targetAgents: [connected.id],
      scorecard: card.data.scorecard.id,
      script: [{ say: 'Hello, where is my order?' }, { say: 'Thank you, goodbye.' }],
    });
    const started = await inWs('POST', `/scenarios/${scenario.data.scenario.id}/execute`, {
      runs: 3,
    });
    const done = await inWs('GET', `/executions/${started.data.execution.id}?wait=120`);
    expect(done.data.execution.status).toBe('completed');
    return { scorecardId: card.data.scorecard.id as string };
  }

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    [agent, brain, providers] = await Promise.all([
      startOrderAgent(),
      startFakeBrain(),
      startFakeProviders(),
    ]);
    providers.state.vapiCalls = [recentCall(1, 90), recentCall(2, 60)];
    serve = await startServe({
      CALLBENCH_LLM_BASE_URL: brain.url,
      CALLBENCH_LLM_API_KEY: 'k',
      CALLBENCH_LLM_MODEL: 'fake-judge',
    });
    ws = (await api('GET', '/api/v1/workspaces')).data.workspaces[0].id as string;
  });
  test.afterAll(async () => {
    await serve?.stop();
    await agent?.stop();
    await brain?.stop();
    await providers?.stop();
  });
  test.afterEach(async ({ page }) => {
    // The page's event stream would hold serve open: the page goes first.
    await page.close();
  });

  test('label from the keyboard, the calibration counts it, requirement and reference saved', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1400, height: 860 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const { scorecardId } = await judgedRuns();

    await openApp(page, serve);
    await section(page, 'Scorecards');
    await page
      .getByRole('row', { name: /Orders/ })
      .getByRole('button', { name: 'Calibration' })
      .click();
    const calibration = page.getByRole('region', { name: 'Calibration of Orders' });
    for (const name of JUDGED)
      await expect(
        calibration
          .getByRole('group', { name: `Calibration of ${name}` })
          .getByLabel('Calibration figures'),
      ).toHaveText(/^0 labels · agreement — · kappa —/);
    await shot(page, 'review-01-calibration-empty');

    await calibration.getByRole('button', { name: 'Review results' }).click();
    const review = page.getByRole('dialog', { name: /Review: Orders/ });
    const queue = review.getByRole('list', { name: 'Review queue' });
    await expect(queue.getByRole('button')).toHaveCount(6);
    const progress = review.getByLabel('Review progress');
    await expect(progress).toContainText('Item 1 of 6 · 0 labelled');
    // The transcript numbered from 0 as the judge read it, the judge's evidence marked in its turn.
    const transcript = review.getByRole('log', { name: 'Numbered turns' });
    await expect(transcript.locator('[data-turn="0"]')).toContainText(
      '0.Caller: Hello, where is my order?',
    );
    await expect(transcript.locator('[data-turn="1"]').locator('mark')).toHaveText(
      /^Your order has shipped\. Tracking TRK1/,
    );
    await shot(page, 'review-02-first-item');

    // One key per label; each shows the next item at once. What each label was given is noted
    // by the metric on screen, for the calibration after.
    const verdict = review.getByRole('group', { name: "Judge's verdict" });
    const metricNow = async () => (await verdict.getByRole('heading').textContent())!.trim();
    const given: { metric: string; key: string }[] = [];
    for (const [i, key] of ['p', 'f', 'n'].entries()) {
      given.push({ metric: await metricNow(), key });
      await page.keyboard.press(key);
      await expect(progress).toContainText(`Item ${i + 2} of 6`);
    }
    await expect(progress).toContainText('3 labelled (3 this session)');
    // Equal scores and no agreement yet: the queue keeps the load order, metric by metric.
    expect(given.map((g) => g.metric)).toEqual([JUDGED[0], JUDGED[1], JUDGED[0]]);
    // k goes back to the not applicable one, j forward again.
    await page.keyboard.press('k');
    await expect(progress).toContainText('Item 3 of 6');
    await expect(review.getByLabel('Label', { exact: true })).toHaveText(
      /Labelled Not applicable by/,
    );
    await page.keyboard.press('j');
    await expect(progress).toContainText('Item 4 of 6');

    // Keys typed in the note stay in it: nothing labelled, nothing moved.
    const note = review.getByLabel('Note (optional)');
    await note.click();
    await page.keyboard.type('judge skipped the pickup of the parcel');
    await expect(note).toHaveValue('judge skipped the pickup of the parcel');
    await expect(progress).toContainText('Item 4 of 6 · 3 labelled');
    await page.keyboard.press('Escape');
    await expect(review).toBeVisible();
    given.push({ metric: await metricNow(), key: 'f' });
    await page.keyboard.press('f');
    await expect(progress).toContainText('Item 5 of 6 · 4 labelled (4 this session)');
    await expect(queue.getByRole('button').nth(3)).toContainText('4. fail ·');
    await shot(page, 'review-03-labelled');

    // Saved on the engine, the note with the last one.
    const saved = await inWs('GET', `/reviews?scorecardId=${scorecardId}`);
    const reviews = saved.data.reviews as { verdict: string; note: string | null }[];
    expect(reviews.map((r) => r.verdict).sort()).toEqual([
      'fail',
      'fail',
      'not_applicable',
      'pass',
    ]);
    expect(reviews.find((r) => r.note)?.note).toBe('judge skipped the pickup of the parcel');

    // The calibration read again when the review closes: labels and confusion per metric (the
    // judge passed every result; not applicable labels are not counted).
    await review.getByRole('button', { name: 'Close' }).click();
    await expect(review).toBeHidden();
    for (const name of JUDGED) {
      const mine = given.filter((g) => g.metric === name);
      const pass = mine.filter((g) => g.key === 'p').length;
      const fail = mine.filter((g) => g.key === 'f').length;
      const card = calibration.getByRole('group', { name: `Calibration of ${name}` });
      await expect(card.getByLabel('Calibration figures')).toHaveText(
        new RegExp(`^${pass + fail} labels? · `),
      );
      const table = card.getByRole('table', { name: `Confusion of ${name}` });
      await expect(table.getByLabel('Both pass')).toHaveText(String(pass));
      await expect(table.getByLabel('Judge pass, human fail')).toHaveText(String(fail));
      await expect(table.getByLabel('Both fail')).toHaveText('0');
      await expect(
        card.getByRole('list', { name: `Disagreements on ${name}` }).getByRole('listitem'),
      ).toHaveCount(fail);
    }
    await expect(calibration).toContainText('Judge model: fake');
    await shot(page, 'review-04-calibration');

    // A disagreement opens the review on its item, labelled as it was.
    const failed = given.find((g) => g.key === 'f')!.metric;
    await calibration
      .getByRole('list', { name: `Disagreements on ${failed}` })
      .getByRole('listitem')
      .first()
      .getByRole('button', { name: 'Review this simulation' })
      .click();
    await expect(review.getByRole('group', { name: "Judge's verdict" })).toContainText(failed);
    await expect(review.getByLabel('Label', { exact: true })).toHaveText(/^Labelled Fail by/);
    await review.getByRole('button', { name: 'Close' }).click();
    await expect(review).toBeHidden();

    // A requirement added to the first judged metric: saved on the same metric (its id kept, so
    // its labels still count), and those labels now stale.
    const before = await inWs('GET', `/scorecards/${scorecardId}`);
    await page
      .getByRole('row', { name: /Orders/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    const editor = page.getByRole('dialog', { name: 'Edit scorecard' });
    await editor
      .getByRole('group', { name: 'metric 1' })
      .getByLabel('Requirements (one per line, optional)')
      .fill('Greets the caller\nSays goodbye');
    await editor.getByRole('button', { name: 'Save scorecard' }).click();
    await expect(editor).toBeHidden();
    const card = await inWs('GET', `/scorecards/${scorecardId}`);
    expect(card.data.scorecard.metrics.map((m: Json) => m.id)).toEqual(
      before.data.scorecard.metrics.map((m: Json) => m.id),
    );
    expect(card.data.scorecard.metrics[0].config.requirements).toEqual([
      'Greets the caller',
      'Says goodbye',
    ]);

    // A reference answer to the first script line, saved with the scenario.
    await section(page, 'Scenarios');
    await page
      .getByRole('row', { name: /Where is my order/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    const scenarioEditor = page.getByRole('dialog', { name: 'Edit scenario' });
    await scenarioEditor
      .getByRole('group', { name: 'script line 1' })
      .getByLabel('Reference answer (optional)')
      .fill('Your order has shipped and arrives Friday.');
    await scenarioEditor.getByRole('button', { name: 'Save scenario' }).click();
    await expect(scenarioEditor).toBeHidden();
    const { scenarios } = (await inWs('GET', '/scenarios')).data as {
      scenarios: { script: { say?: string; reference?: string }[] }[];
    };
    expect(scenarios[0]!.script[0]).toEqual({
      say: 'Hello, where is my order?',
      reference: 'Your order has shipped and arrives Friday.',
    });

    // Back on the scorecard: the rubric changed under the labelled metric, so it is stale.
    await section(page, 'Scorecards');
    await page
      .getByRole('row', { name: /Orders/ })
      .getByRole('button', { name: 'Calibration' })
      .click();
    const polite = calibration.getByRole('group', { name: `Calibration of ${JUDGED[0]}` });
    await expect(polite).toContainText('stale');
    await expect(polite).toContainText('the criterion or requirements changed since');
    await shot(page, 'review-05-stale');
    expect(errors).toEqual([]);
  });

  test("the Production tab's review: an agent's scored calls labelled from the keyboard", async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const connected = await api('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const agentId = connected.id as string;
    const calls = async () =>
      (await api('GET', `/v1/agents/${agentId}/calls`)) as unknown as {
        total: number;
        calls: { id: string; evaluation: unknown }[];
      };
    await expect.poll(async () => (await calls()).total, { timeout: 30_000 }).toBe(2);
    const card = await inWs('POST', '/scorecards', {
      name: 'Production card',
      metrics: [
        { name: 'Helps', type: 'llm_judge', config: { criterion: 'The agent helps' } },
        { name: 'Says shipped', type: 'contains', config: { text: 'shipped' } },
      ],
    });
    const scorecardId = card.data.scorecard.id as string;
    await api('PATCH', `/v1/agents/${agentId}`, {
      monitoring: { workspaceId: ws, scorecardId, sampleRate: 100, enabled: true },
    });
    await api('POST', `/v1/agents/${agentId}/monitoring/backfill`, {});
    await expect
      .poll(async () => (await calls()).calls.filter((c) => c.evaluation).length, {
        timeout: 60_000,
      })
      .toBe(2);

    await page.setViewportSize({ width: 1400, height: 860 });
    await openApp(page, serve, `agents/${agentId}`);
    await page.getByRole('tab', { name: 'Production' }).click();
    await page.getByRole('button', { name: 'Review scored calls' }).click();
    const review = page.getByRole('dialog', { name: /Review: Production card/ });
    await expect(
      review.getByRole('list', { name: 'Review queue' }).getByRole('button'),
    ).toHaveCount(2);
    // The call's turns numbered as the judge read them: the tool call in its place by time, the
    // agent's words the judge quoted marked.
    const turns = review.getByRole('log', { name: 'Numbered turns' });
    await expect(turns.locator('[data-turn="2"]')).toContainText('[tool order_status');
    await expect(turns.locator('mark')).toContainText(/tracking number TRK/i);
    await shot(page, 'review-06-call');

    await page.keyboard.press('f');
    const progress = review.getByLabel('Review progress');
    await expect(progress).toContainText('Item 2 of 2 · 1 labelled');
    await page.keyboard.press('p');
    await expect(progress).toContainText('2 labelled (2 this session)');
    const saved = await inWs('GET', `/reviews?scorecardId=${scorecardId}`);
    const reviews = saved.data.reviews as { target: { callId?: string }; verdict: string }[];
    expect(reviews.map((r) => r.verdict).sort()).toEqual(['fail', 'pass']);
    expect(new Set(reviews.map((r) => r.target.callId))).toEqual(
      new Set((await calls()).calls.map((c) => c.id)),
    );
    expect(errors).toEqual([]);
  });
});
