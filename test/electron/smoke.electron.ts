import type { Json } from '../helpers/json.js';
import { _electron as electron, expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The desktop app starts, shows the interface over IPC, and exposes only the two bridge functions. */
test('the desktop app starts on a fresh profile and talks to its engine over IPC', async () => {
  const userData = mkdtempSync(join(tmpdir(), 'callbench-electron-'));
  const app = await electron.launch({
    args: ['.', `--user-data-dir=${userData}`],
    env: { ...process.env, ELECTRON_ENABLE_LOGGING: '1' },
  });
  try {
    const page = await app.firstWindow();
    await expect(page.locator('body[data-ready="true"]')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    expect(await page.evaluate(() => Object.keys((window as Json).callbench).sort())).toEqual([
      'invoke',
      'subscribe',
    ]);
    expect(await page.evaluate(() => typeof (window as Json).require)).toBe('undefined');
    const prefs = webPreferences(
      await app.evaluate(({ BrowserWindow }) =>
        (BrowserWindow.getAllWindows()[0]!.webContents as Json).getLastWebPreferences(),
      ),
    );
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    await page.getByRole('navigation', { name: 'Sections' }).getByText('Settings').click();
    await expect(page.getByRole('region', { name: 'API server' })).toContainText('Local HTTP API');
  } finally {
    await app.close();
    rmSync(userData, { recursive: true, force: true });
  }
});

const webPreferences = (p: Record<string, unknown>) => p;
