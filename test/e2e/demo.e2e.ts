import { expect, openApp, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * A tester's first run, from an empty data dir with no model, key or provider: the overview
 * offers the demo, one click runs it in text and by voice, and the results open in the Demo
 * workspace, both passed.
 */
test.describe('the demo from an empty install', () => {
  let serve: ServeHandle;

  test.beforeAll(async () => {
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
  });

  test('Run the demo: both calls pass, with a recording to play', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openApp(page, serve);
    const card = page.getByTestId('demo-card');
    await expect(card).toBeVisible();
    await shot(page, '01a-overview-first-run');
    await card.getByRole('button', { name: 'Run the demo' }).click();
    await expect(card.getByRole('status')).toContainText('Voice call');
    // The demo switches to its workspace and opens the results once both calls ended.
    await expect(page.getByRole('combobox', { name: 'Workspace' })).toContainText('Demo', {
      timeout: 90_000,
    });
    await expect(page).toHaveURL(/#\/executions$/);
    const rows = page.getByRole('row', { name: /Demo: where is my order/ });
    await expect(rows).toHaveCount(2);
    for (const row of await rows.all()) await expect(row).toContainText('100%');
    await shot(page, '01b-demo-results');

    await rows.first().click();
    await page.getByTestId('simulation-list').getByRole('row').first().click();
    await expect(page.locator('audio')).toHaveAttribute('src', /^blob:/);
    await expect(page.getByRole('log', { name: 'Transcript' })).toContainText('order_status');
    await shot(page, '01c-demo-audio-call');
    expect(errors).toEqual([]);
  });
});
