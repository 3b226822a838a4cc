import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { startFakeHttpAgent } from '../helpers/fake-chat.js';
import { startFakeSpeech, type FakeSpeech } from '../helpers/fake-speech.js';
import { startFakeVoice, type FakeVoice } from '../helpers/fake-voice.js';
import type { Json } from '../helpers/json.js';
import { expect, openApp, section, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * Reading the results, for everyone: every screen (with data made through the API: an agent, a
 * tool, a persona, scorecards, a text and an audio simulation, a schedule, an alert) passes
 * axe-core with no serious or critical violation, in the light and the dark theme, and holds at
 * 1280x720; the audio timeline has an axis and seeks the player; every empty list says what
 * belongs there and offers the action that adds it.
 */

interface Made {
  agentId: string;
  toolId: string;
  executionId: string;
  textSimulationId: string;
  audioSimulationId: string;
  comparisonId: string;
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

/** Executes a scenario, waits for it to end, and answers the execution and its first simulation. */
async function runScenario(api: ReturnType<typeof apiOf>, ws: string, scenarioId: string) {
  const started = await api('POST', `${ws}/scenarios/${scenarioId}/execute`, {});
  const id = started.data.execution.id as string;
  const done = await api('GET', `${ws}/executions/${id}?wait=90`);
  expect(done.data.execution.status).not.toBe('running');
  const sims = await api('GET', `${ws}/executions/${id}/simulations`);
  return { executionId: id, simulationId: sims.data.simulations[0].id as string };
}

type ChatAgent = Awaited<ReturnType<typeof startFakeHttpAgent>>;

/** Everything the screens list, made through the API, with one text and one audio simulation. */
async function makeData(
  serve: ServeHandle,
  fakes: { voice: FakeVoice; speech: FakeSpeech; chat: ChatAgent },
): Promise<Made> {
  const { voice, speech, chat } = fakes;
  const api = apiOf(serve);
  const workspaces = await api('GET', '/api/v1/workspaces');
  const ws = `/api/v1/workspaces/${workspaces.data.workspaces[0].id as string}`;
  await api('PATCH', '/v1/settings', {
    speech: { stt: { baseUrl: `${speech.url}/v1`, apiKey: 'fake-speech-key', model: 'whisper-1' } },
  });
  const agent = await api('POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: 'Pipecat bot',
    credentials: { base_url: `${voice.url}/chat`, websocket_url: voice.mediaStreamUrl },
  });
  const textAgent = await api('POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: 'Chat bot',
    credentials: { base_url: `${chat.url}/simple` },
  });
  const tool = await api('POST', '/v1/tools', {
    name: 'order_status',
    type: 'api',
    config: { method: 'GET', url: `${voice.url}/orders/{orderId}` },
    parameters: [{ name: 'orderId', type: 'string', required: true }],
  });
  const persona = await api('POST', `${ws}/personas`, { name: 'Dana', prompt: 'Calm.' });
  const scorecard = async (name: string, text: string) =>
    (
      await api('POST', `${ws}/scorecards`, {
        name,
        metrics: [
          { name: `Says ${text}`, category: 'accuracy', type: 'contains', config: { text } },
        ],
      })
    ).data.scorecard.id as string;
  const scenario = async (name: string, card: string, audio: boolean) =>
    (
      await api('POST', `${ws}/scenarios`, {
        name,
        prompt: 'Ask where your order is.',
        personas: [persona.data.persona.id],
        targetAgents: [audio ? agent.id : textAgent.id],
        scorecard: card,
        script: [{ say: 'Hello, where is my order?' }, { say: 'Thank you, goodbye.' }],
        ...(audio ? { audio: { enabled: true } } : {}),
      })
    ).data.scenario.id as string;
  // The text run fails its scorecard (the agent never says "refund"): a failed simulation's reason.
  const textScenario = await scenario(
    'Refund by chat',
    await scorecard('Refunds', 'refund'),
    false,
  );
  const audioScenario = await scenario(
    'Order by voice',
    await scorecard('Orders', 'shipped'),
    true,
  );
  await api('POST', `${ws}/schedules`, {
    name: 'Nightly order check',
    scenarioId: textScenario,
    periodicity: 'daily',
  });
  await api('POST', '/v1/alerts', {
    name: 'CRM slow',
    severity: 'high',
    notifications: { os: false },
    condition: {
      type: 'tool_performance',
      toolId: 'order_status',
      metric: 'p95_response_time',
      operator: 'greater_than',
      threshold: 800,
      timeWindow: '15m',
    },
  });
  const text = await runScenario(api, ws, textScenario);
  speech.transcripts.push('Your order has shipped.', 'Your order has shipped.');
  const audio = await runScenario(api, ws, audioScenario);
  // The audio execution against itself: a comparison with voice rows to read.
  const same = { executionId: audio.executionId };
  const comparison = await api('POST', `${ws}/comparisons`, { baseline: same, candidate: same });
  return {
    agentId: agent.id as string,
    toolId: tool.id as string,
    executionId: audio.executionId,
    textSimulationId: text.simulationId,
    audioSimulationId: audio.simulationId,
    comparisonId: comparison.data.comparison.id as string,
  };
}

/** A screen by its route, and what shows once its data is in. */
interface Visit {
  name: string;
  path: string;
  ready: (page: Page) => Promise<void>;
}

const heading = (name: string | RegExp) => async (page: Page) => {
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(page.getByLabel('Loading the screen')).toHaveCount(0);
};
const showing = (h: string | RegExp, text: string | RegExp) => async (page: Page) => {
  await heading(h)(page);
  await expect(page.getByRole('main')).toContainText(text);
};

function visits(m: Made): Visit[] {
  const tab = (name: string, text: string | RegExp): Visit => ({
    name: `agent-${name.toLowerCase()}`,
    path: `agents/${m.agentId}`,
    ready: async (page) => {
      await heading('Agent: Pipecat bot')(page);
      await page.getByRole('tab', { name }).click();
      await expect(page.getByRole('tabpanel').or(page.getByRole('main'))).toContainText(text);
    },
  });
  return [
    { name: 'overview', path: '', ready: showing('Overview', 'Order by voice') },
    { name: 'agents', path: 'agents', ready: showing('Agents', 'Pipecat bot') },
    tab('Configuration', /Field|Overrides/),
    tab('Tools', /Tool|tool/),
    tab('Calls', /Calls|call/),
    tab('Versions', /Version|version/),
    tab('Analytics', /./),
    { name: 'tools', path: 'tools', ready: showing('Tools', 'order_status') },
    { name: 'tool', path: `tools/${m.toolId}`, ready: heading('Tool: order_status') },
    ...['Edit', 'Versions', 'Analytics'].map((name): Visit => ({
      name: `tool-${name.toLowerCase()}`,
      path: `tools/${m.toolId}`,
      ready: async (page) => {
        await heading('Tool: order_status')(page);
        await page.getByRole('tab', { name }).click();
        await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
      },
    })),
    { name: 'personas', path: 'personas', ready: showing('Personas', 'Dana') },
    { name: 'scenarios', path: 'scenarios', ready: showing('Scenarios', 'Order by voice') },
    { name: 'scorecards', path: 'scorecards', ready: showing('Scorecards', 'Refunds') },
    { name: 'executions', path: 'executions', ready: showing('Executions', 'Refund by chat') },
    {
      name: 'execution',
      path: `executions/${m.executionId}`,
      ready: showing(/^Execution: /, 'Dana'),
    },
    { name: 'simulations', path: 'simulations/all', ready: showing('All simulations', 'Dana') },
    {
      name: 'simulation-text',
      path: `simulations/${m.textSimulationId}`,
      ready: showing(/^Simulation: /, 'Says refund'),
    },
    {
      name: 'simulation-audio',
      path: `simulations/${m.audioSimulationId}`,
      ready: async (page) => {
        await showing(/^Simulation: /, 'Says shipped')(page);
        await expect(page.locator('audio')).toHaveAttribute('src', /^blob:/);
      },
    },
    { name: 'comparisons', path: 'comparisons', ready: showing('Comparisons', 'Order by voice') },
    {
      name: 'comparison',
      path: `comparisons/${m.comparisonId}`,
      ready: showing('Comparison: Order by voice', 'Order by voice × Dana'),
    },
    { name: 'schedules', path: 'schedules', ready: showing('Schedules', 'Nightly order check') },
    { name: 'alerts', path: 'alerts', ready: showing('Alerts', 'CRM slow') },
    { name: 'settings', path: 'settings', ready: showing('Settings', 'API keys') },
  ];
}

/** axe-core's serious and critical violations on the page as it is, in words a failure can show. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary}`),
    );
}

/** Switches the theme, then moves the pointer off the button so its tooltip is gone, not fading. */
async function switchTheme(page: Page) {
  await page.getByRole('button', { name: 'Switch theme' }).click();
  await page.mouse.move(640, 700);
  await expect(page.getByRole('tooltip')).toHaveCount(0);
}

const goTo = async (page: Page, path: string) => {
  await page.evaluate((p) => (location.hash = `#/${p}`), path);
};

test.describe('reading the results, for everyone', () => {
  let serve: ServeHandle;
  let voice: FakeVoice;
  let speech: FakeSpeech;
  let chat: ChatAgent;
  let made: Made;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    [voice, speech, chat] = await Promise.all([
      startFakeVoice({ delayMs: 400, replies: ['Your order has shipped.'] }),
      startFakeSpeech(),
      startFakeHttpAgent(),
    ]);
    serve = await startServe();
    made = await makeData(serve, { voice, speech, chat });
  });
  test.afterAll(async () => {
    await serve?.stop();
    await Promise.all([voice?.stop(), speech?.stop(), chat?.stop()]);
  });
  test.afterEach(async ({ page }) => {
    // The page's event stream would hold serve open: the page goes first.
    await page.close();
  });

  test('every screen, light and dark, at 1280x720: no serious or critical axe violation', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1280, height: 720 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openApp(page, serve);
    const found: string[] = [];
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') await switchTheme(page);
      for (const v of visits(made)) {
        await goTo(page, v.path);
        await v.ready(page);
        found.push(...(await seriousViolations(page)).map((s) => `${theme} ${v.name}: ${s}`));
        await shot(page, `a11y-${theme}-${v.name}`);
      }
    }
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('the audio timeline: a time axis, a playhead, and a click seeks the player', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openApp(page, serve, `simulations/${made.audioSimulationId}`);
    const audio = page.locator('audio');
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.duration)).toBeGreaterThan(5);
    const axis = page.getByTestId('timeline-axis');
    await expect(axis).toContainText('0 s');
    // Round steps, in order, as far as the call goes (about ten seconds: 0 s, 2 s, ... 10 s).
    const ticks = await axis
      .locator('[data-ms]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-ms'))));
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks).toEqual([...ticks].sort((a, b) => a - b));
    expect(ticks.at(-1)! / 1000).toBeLessThanOrEqual(
      Math.ceil(await audio.evaluate((a: HTMLAudioElement) => a.duration)),
    );
    // The recording and its timeline are in view at 1280x720, not pushed below the fold.
    const timeline = page.getByTestId('call-timeline');
    await expect(timeline).toBeInViewport();
    const box = (await timeline.boundingBox())!;
    await timeline.click({ position: { x: box.width * 0.75, y: box.height / 2 } });
    const played = () => audio.evaluate((a: HTMLAudioElement) => a.currentTime);
    await expect.poll(played).toBeGreaterThan(2);
    const duration = await audio.evaluate((a: HTMLAudioElement) => a.duration);
    const seconds = await played();
    // The click landed three quarters along the call (the timeline spans the whole recording).
    expect(seconds / duration).toBeGreaterThan(0.6);
    expect(seconds / duration).toBeLessThan(0.9);
    const playhead = page.getByTestId('playhead');
    await expect(playhead).toHaveAttribute('data-ms', String(Math.round(seconds * 1000)));
    const head = (await playhead.boundingBox())!;
    expect((head.x - box.x) / box.width).toBeCloseTo(0.75, 1);
    await shot(page, 'a11y-timeline-seeked');
  });

  test('a failed simulation says why beside its score; lists say text or audio', async ({
    page,
  }) => {
    await openApp(page, serve, `simulations/${made.textSimulationId}`);
    const header = page.getByLabel('Simulation result');
    await expect(header).toContainText('failed');
    await expect(header).toContainText('Says refund');
    await section(page, 'Executions');
    await expect(page.getByRole('row', { name: /Refund by chat/ })).toContainText('text');
    await expect(page.getByRole('row', { name: /Order by voice/ })).toContainText('audio');
    await goTo(page, 'simulations/all');
    const list = page.getByTestId('simulation-list');
    await expect(list.getByRole('row', { name: /Refund by chat/ })).toContainText('text');
    await expect(list.getByRole('row', { name: /Order by voice/ })).toContainText('audio');
  });
});

test.describe('empty lists', () => {
  let serve: ServeHandle;
  test.beforeAll(async () => {
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
  });

  test('every list says what belongs there and offers the action that adds it', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openApp(page, serve);
    // Scorecards are left out: a new store has the default scorecard.
    const lists: [string, string, RegExp][] = [
      ['Agents', 'Connect your first agent', /No agents yet/],
      ['Tools', 'Create your first tool', /No tools yet/],
      [
        'Personas',
        'Create your first persona',
        /No personas yet\. A persona is who calls your agent\./,
      ],
      ['Scenarios', 'Create your first scenario', /No scenarios yet/],
      ['Executions', 'Go to Scenarios', /No executions yet/],
      ['Comparisons', 'Go to Executions', /No comparisons yet/],
      ['Schedules', 'Schedule a scenario', /No schedules yet/],
      ['Alerts', 'Create your first alert', /No alerts yet/],
    ];
    for (const [name, action, sentence] of lists) {
      await section(page, name);
      const empty = page.getByTestId('empty-state');
      await expect(empty.first()).toContainText(sentence);
      await expect(empty.first().getByRole('button', { name: action })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `empty-${name.toLowerCase()}`);
    }
    await switchTheme(page);
    await section(page, 'Overview');
    await expect(page.getByTestId('empty-state').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'empty-overview-dark');
    await switchTheme(page);
    await page.close();
  });
});
