import { test as base, expect, type Locator, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SHOTS = 'test/e2e/output/screenshots';

export interface ServeHandle {
  url: string;
  key: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** `serve` as a user starts it (the CLI, a fresh data dir, a key in the environment), on a free port. */
export async function startServe(env: Record<string, string> = {}): Promise<ServeHandle> {
  const dataDir = mkdtempSync(join(tmpdir(), 'callbench-e2e-'));
  const key = `cbk_e2e_${Math.random().toString(36).slice(2)}`;
  const child: ChildProcess = spawn(
    process.execPath,
    ['src/cli/callbench.mjs', 'serve', '--port', '0', '--data-dir', dataDir],
    {
      env: { ...process.env, CALLBENCH_API_KEY: key, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${output}`)));
  });
  return {
    url,
    key,
    dataDir,
    async stop() {
      // A serve that already ended (the test stopped it, or it failed) emits no second 'exit'.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens the app and waits for its ready marker (never a fixed sleep). */
/** Opens the app through a fresh one-time login link, as a user clicking the one serve printed. */
export async function openApp(page: Page, serve: ServeHandle, path = ''): Promise<void> {
  const res = await fetch(`${serve.url}/v1/login-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.key}` },
  });
  const { url } = (await res.json()) as { url: string };
  await page.goto(`${url}#/${path}`);
  // The first load compiles the bundle: on a busy machine that alone can pass expect's 5 s.
  await expect(page.locator('body[data-ready="true"]')).toBeVisible({ timeout: 20_000 });
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  // Menus that are closing, and a scrolled window, would make a misleading picture.
  await expect(page.getByRole('listbox')).toHaveCount(0);
  await page.evaluate(() => window.scrollTo(0, 0));
  // Transitions finished (a progress bar mid-animation would show the wrong amount).
  await page.screenshot({
    path: join(SHOTS, `${name}.png`),
    fullPage: true,
    animations: 'disabled',
  });
}

/** Opens a section from the navigation. */
export async function section(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByText(name, { exact: true }).click();
}

/** Opens the scenario editor and fills what every scenario has: name, situation, one persona, one agent. */
export async function startScenario(
  page: Page,
  s: { name: string; situation: string; persona: string; agent: RegExp },
) {
  await section(page, 'Scenarios');
  await page.getByRole('button', { name: 'New scenario' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name', { exact: true }).fill(s.name);
  await dialog.getByLabel('Situation (use {{variables}})').fill(s.situation);
  await dialog.getByLabel('Personas').click();
  await page.getByRole('option', { name: s.persona }).click();
  await page.keyboard.press('Escape');
  await dialog.getByLabel('Target agents').click();
  await page.getByRole('option', { name: s.agent }).click();
  await page.keyboard.press('Escape');
  return dialog;
}

/** Speech-to-text set in Settings, at `url` (a fake OpenAI-compatible server); answers its group. */
export async function setSpeechToText(page: Page, url: string): Promise<Locator> {
  await section(page, 'Settings');
  const stt = page
    .getByRole('region', { name: 'Speech (audio simulations)' })
    .getByRole('group', { name: 'Speech-to-text' });
  await stt.getByLabel('Base URL (default: the vendor)').fill(url);
  await stt.getByLabel('Model').fill('whisper-1');
  await stt.getByLabel('API key').fill('fake-speech-key');
  await stt.getByRole('button', { name: 'Save' }).click();
  await expect(stt.getByLabel('API key')).toHaveValue(/-key$|\*/);
  return stt;
}

/** A custom agent at `chatUrl`, taking audio calls on Twilio Media Streams at `mediaStreamUrl`. */
export async function connectAudioAgent(
  page: Page,
  agent: { name: string; chatUrl: string; mediaStreamUrl: string },
): Promise<void> {
  await section(page, 'Agents');
  await page.getByRole('button', { name: 'Connect agent' }).click();
  const connect = page.getByRole('dialog', { name: 'Connect an agent' });
  await connect.getByLabel('Provider').click();
  await page.getByRole('option', { name: 'http' }).click();
  await connect.getByLabel('Name').fill(agent.name);
  await connect.getByLabel('URL of the agent').fill(agent.chatUrl);
  await connect.getByLabel('Audio WebSocket URL (optional)').fill(agent.mediaStreamUrl);
  await connect.getByRole('button', { name: 'Connect' }).click();
  await expect(connect).toBeHidden();
}

export const test = base;
export { expect };
