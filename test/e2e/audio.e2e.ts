import { startFakeSpeech, type FakeSpeech } from '../helpers/fake-speech.js';
import { startFakeVoice, type FakeVoice } from '../helpers/fake-voice.js';
import {
  expect,
  openApp,
  connectAudioAgent,
  section,
  setSpeechToText,
  shot,
  startScenario,
  startServe,
  test,
  type ServeHandle,
} from './fixtures.js';

/**
 * An audio simulation from the interface: speech-to-text set in Settings, a custom agent with
 * its audio URL (a fake Twilio Media Streams agent answering with real speech), a scenario with
 * the audio switch on, then the call's figures, recording and timeline.
 */
test.describe('audio simulations in the interface', () => {
  let serve: ServeHandle;
  let voice: FakeVoice;
  let speech: FakeSpeech;

  test.beforeAll(async () => {
    [voice, speech] = await Promise.all([
      startFakeVoice({ delayMs: 600, replies: ['Your order has shipped.'] }),
      startFakeSpeech(),
    ]);
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
    await Promise.all([voice?.stop(), speech?.stop()]);
  });

  test('set up, call, listen', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openApp(page, serve);

    await setSpeechToText(page, `${speech.url}/v1`);
    await shot(page, '15-speech-settings');

    await connectAudioAgent(page, {
      name: 'Pipecat bot',
      chatUrl: `${voice.url}/chat`,
      mediaStreamUrl: voice.mediaStreamUrl,
    });

    await section(page, 'Personas');
    await page.getByRole('button', { name: 'New persona' }).click();
    const persona = page.getByRole('dialog');
    await persona.getByLabel('Name', { exact: true }).fill('Dana');
    await persona.getByLabel('Who they are and how they speak').fill('Calm, speaks clearly.');
    await persona.getByLabel('Voice', { exact: true }).fill('en-us');
    await page.getByRole('button', { name: 'Save persona' }).click();
    await expect(page.getByRole('table', { name: 'Personas' })).toContainText('Dana');

    const scenario = await startScenario(page, {
      name: 'Order by voice',
      situation: 'Ask where your order is.',
      persona: 'Dana',
      agent: /Pipecat bot/,
    });
    await scenario.getByRole('switch', { name: 'Caller script as JSON' }).check();
    await scenario
      .getByLabel(/^Script/)
      .fill('[{"say": "Hello, where is my order?"}, {"say": "Thank you, goodbye."}]');
    await scenario.getByRole('switch', { name: /Audio calls/ }).check();
    await scenario.getByRole('button', { name: 'Save scenario' }).click();
    speech.transcripts.push('Your order has shipped.', 'Your order has shipped.');

    await page
      .getByRole('row', { name: /Order by voice/ })
      .getByRole('button', { name: 'Execute' })
      .click();
    const run = page.getByRole('dialog', { name: /Execute/ });
    await expect(run.getByLabel('Mode')).toContainText('audio');
    await run.getByRole('button', { name: 'Start' }).click();
    await expect(run.getByTestId('execution-progress')).toContainText('1 of 1 ended', {
      timeout: 60_000,
    });
    await run.getByRole('button', { name: 'Open results' }).click();
    await expect(page.getByLabel('Audio latency')).toContainText('1 audio call');
    await page.getByTestId('simulation-list').getByRole('row').first().click();

    await expect(page.getByLabel('Call figures')).toContainText('twilio call');
    await expect(page.getByLabel('Call figures')).toContainText(/latency p50 \d+ ms/);
    await expect(page.getByLabel('Call figures')).toContainText('turns by Silero VAD');
    const timeline = page.getByRole('img', { name: /Call timeline/ });
    await expect(timeline.locator('[data-side="agent"]').first()).toBeVisible();
    await expect(timeline.locator('[data-side="caller"]').first()).toBeVisible();
    await expect(page.locator('audio')).toHaveAttribute('src', /^blob:/);
    // The browser decodes the recording: it lasts as long as the call.
    await expect
      .poll(() => page.locator('audio').evaluate((a: HTMLAudioElement) => a.duration))
      .toBeGreaterThan(5);
    await expect(page.getByRole('log', { name: 'Transcript' })).toContainText(
      'Your order has shipped.',
    );
    await shot(page, '16-audio-call');
    expect(errors).toEqual([]);
  });
});
