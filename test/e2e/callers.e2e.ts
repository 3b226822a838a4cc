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

const REPLY =
  'Let me look that up for you. Your booking is for two people on Friday, at seven in the evening.';

/**
 * A realistic caller from the interface: a persona in a cafe that barges in, a scripted audio
 * scenario that backchannels and keys in digits, executed on a mobile line with a seed; then the
 * simulation's Caller panel (line, seed, noise, what the caller did) and the transcript's acts.
 * The agent is a fake Twilio Media Streams agent that stops when talked over.
 */
test.describe('realistic callers in the interface', () => {
  let serve: ServeHandle;
  let voice: FakeVoice;
  let speech: FakeSpeech;

  test.beforeAll(async () => {
    [voice, speech] = await Promise.all([
      // The fake hears by energy alone: the cafe bed's peaks (up to about -18 dBFS at 15 dB SNR)
      // would count as speech and hold its reply back forever. It hears from -20 dBFS and answers
      // quickly, between the bed's peaks; it stops for 700 ms of speech over it (a barge-in), not
      // for a short backchannel.
      startFakeVoice({ delayMs: 150, replies: [REPLY], hearingDbfs: -20, bargeInMs: 700 }),
      startFakeSpeech(),
    ]);
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
    await Promise.all([voice?.stop(), speech?.stop()]);
  });

  test('a persona that barges in, on a mobile line in a cafe', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openApp(page, serve);

    await setSpeechToText(page, `${speech.url}/v1`);

    await connectAudioAgent(page, {
      name: 'Pipecat bot',
      chatUrl: `${voice.url}/chat`,
      mediaStreamUrl: voice.mediaStreamUrl,
    });

    // The persona: in a cafe at 15 dB, and it talks over the agent once it has spoken a second.
    await section(page, 'Personas');
    await page.getByRole('button', { name: 'New persona' }).click();
    const persona = page.getByRole('dialog', { name: 'New persona' });
    await persona.getByLabel('Name', { exact: true }).fill('Priya');
    await persona.getByLabel('Who they are and how they speak').fill('In a hurry, cuts in.');
    await persona.getByLabel('Voice', { exact: true }).fill('en-us');
    const caller = persona.getByRole('group', { name: 'Audio caller' });
    await expect(caller.getByLabel('SNR (dB)')).toHaveAccessibleDescription(/15 dB when medium/);
    await caller.getByLabel('Background noise').click();
    await page.getByRole('option', { name: 'cafe', exact: true }).click();
    await caller.getByLabel('SNR (dB)').fill('15');
    await caller.getByLabel('Barge-in chance (%)').fill('100');
    await caller.getByLabel('Barge in after (ms)').fill('1000');
    await persona
      .locator('.MuiDialogContent-root')
      .evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await shot(page, '18-persona-behaviours');
    // A chance over 100% is refused by the engine, at the field.
    await caller.getByLabel('Hang-up chance (%)').fill('150');
    await persona.getByRole('button', { name: 'Save persona' }).click();
    await expect(caller.getByLabel('Hang-up chance (%)')).toHaveAttribute('aria-invalid', 'true');
    await expect(caller.getByLabel('Hang-up chance (%)')).toHaveAccessibleDescription(
      'must be 0 to 100% (probability must be at most 1)',
    );
    await caller.getByLabel('Hang-up chance (%)').fill('');
    await persona.getByRole('button', { name: 'Save persona' }).click();
    await expect(persona).toBeHidden();
    const row = page.getByRole('row', { name: /Priya/ });
    await expect(row).toContainText('cafe');
    await row.getByRole('button', { name: 'Details' }).click();
    const detail = page.getByRole('dialog', { name: 'Priya' }).getByRole('region', {
      name: 'Audio caller',
    });
    await expect(detail).toContainText('cafe at 15 dB SNR');
    await expect(detail).toContainText('100% of agent turns, after 1000 ms');
    await expect(detail).toContainText(/Hang-up\s*off/);
    await page
      .getByRole('dialog', { name: 'Priya' })
      .getByRole('button', { name: 'Close' })
      .click();

    // The scenario: a backchannel while the agent talks, then keypad digits after the words.
    const scenario = await startScenario(page, {
      name: 'Booking by phone',
      situation: 'Check a booking.',
      persona: 'Priya',
      agent: /Pipecat bot/,
    });
    await scenario.getByRole('switch', { name: 'Caller script as JSON' }).check();
    await expect(scenario.getByLabel(/^Script/)).toHaveAccessibleDescription(/"dtmf": "123#"/);
    await scenario
      .getByLabel(/^Script/)
      .fill(
        JSON.stringify([
          { say: 'Hi, I want to check my booking.' },
          { say: 'mm-hmm', backchannel: { afterMs: 800 } },
          { say: 'My account number is', dtmf: '4821#' },
          { say: 'Thanks, goodbye.' },
        ]),
      );
    await scenario.getByRole('switch', { name: /Audio calls/ }).check();
    await scenario.getByLabel('Line', { exact: true }).click();
    await page.getByRole('option', { name: /^phone/ }).click();
    await scenario.getByRole('button', { name: 'Save scenario' }).click();
    await expect(scenario).toBeHidden();
    speech.transcripts.push(REPLY, REPLY, REPLY, REPLY, REPLY, REPLY);

    // Executed on a mobile line, with a seed that replays it.
    await page
      .getByRole('row', { name: /Booking by phone/ })
      .getByRole('button', { name: 'Execute' })
      .click();
    const run = page.getByRole('dialog', { name: /Execute/ });
    await expect(run.getByLabel('Line')).toContainText("the scenario's own (phone)");
    await run.getByLabel('Mode').click();
    await page.getByRole('option', { name: 'text' }).click();
    await expect(run.getByLabel('Seed')).toBeDisabled();
    await run.getByLabel('Mode').click();
    await page.getByRole('option', { name: /the scenario's own/ }).click();
    await expect(run.getByLabel('Seed')).toBeEnabled();
    await run.getByLabel('Line').click();
    await page.getByRole('option', { name: /^mobile/ }).click();
    await run.getByLabel('Seed').fill('1234');
    await shot(page, '19-execute-line-seed');
    await run.getByRole('button', { name: 'Start' }).click();
    await expect(run.getByTestId('execution-progress')).toContainText('1 of 1 ended', {
      timeout: 90_000,
    });
    await run.getByRole('button', { name: 'Open results' }).click();

    await expect(page.getByLabel('Audio latency')).toContainText('1 audio call');
    const conditions = page.getByRole('table', { name: 'By noise and line' });
    await expect(conditions.getByRole('row', { name: /cafe mobile 1/ })).toBeVisible();
    await shot(page, '20-noise-and-line');
    await page.getByTestId('simulation-list').getByRole('row').first().click();

    const panel = page.getByRole('region', { name: 'Caller' });
    await expect(panel).toContainText('mobile');
    // A mobile line is a phone line: μ-law at 8 kHz, whatever the agent's own rate.
    await expect(panel).toContainText('μ-law at 8 kHz · loss');
    await expect(panel).toContainText('seed 1234');
    await expect(panel).toContainText(/Frames lost\s*\d+ of \d+/);
    await expect(panel).toContainText('cafe at 15 dB SNR');
    await expect(panel).toContainText(/Backchannels\s*1/);
    await expect(panel).toContainText('4821# at');
    await expect(panel).toContainText('(as events)');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(
      transcript.locator('[data-role="caller"]').filter({ hasText: 'mm-hmm' }),
    ).toContainText('backchannel');
    await expect(transcript).toContainText('keypad 4821#');
    await shot(page, '17-realistic-caller');
    expect(errors).toEqual([]);
  });
});
