import { expect, openApp, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * "Sign out" in a browser ends the login session on the engine: the page asks for a key again,
 * and the cookie no longer opens anything, even reloaded.
 */
test.describe('signing out of the page', () => {
  let serve: ServeHandle;

  test.beforeAll(async () => {
    serve = await startServe();
  });
  test.afterAll(async () => {
    await serve?.stop();
  });

  test('after a login link, Sign out asks for a key again, and a reload too', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openApp(page, serve);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByLabel('API key')).toBeVisible();
    // The cookie is cleared and its session ended: a reload does not get back in.
    expect(await page.context().cookies()).toEqual([]);
    await page.reload();
    await expect(page.getByLabel('API key')).toBeVisible();
    // A key typed in works, and Sign out forgets it too.
    await page.getByLabel('API key').fill(serve.key);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.locator('body[data-ready="true"]')).toBeVisible();
    // A reload at once after the click, before the engine answered, stays signed out.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.reload();
    await expect(page.getByLabel('API key')).toBeVisible();
    expect(errors).toEqual([]);
  });
});
