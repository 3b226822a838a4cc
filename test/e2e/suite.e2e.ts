import AxeBuilder from '@axe-core/playwright';
import { strFromU8, unzipSync } from 'fflate';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { Json } from '../helpers/json.js';
import { expect, openApp, section, shot, startServe, test, type ServeHandle } from './fixtures.js';

/**
 * Tests as code in the interface (#38): the workspace menu's Import reads a suite folder, shows
 * the plan (creates, updates with their fields, problems at file:line:column), asks for the
 * secrets the files name, and applies only after confirming; a suite with a problem applies
 * nothing; Export downloads the suite as a .zip holding the engine's files.
 */

const SECRET = 'TOOL_ORD_LOOKUP_AUTH_TOKEN';
const TOKEN_VALUE = 'tok-e2e-secret-value';

/** A small suite: two personas and a tool whose token is a placeholder. */
const SUITE: Record<string, string> = {
  'callbench.yaml': [
    '$schema: .callbench/schemas/suite.json',
    'name: Checkout suite',
    'agents: []',
    'secrets:',
    `  - ${SECRET}`,
    '',
  ].join('\n'),
  'personas/frank.yaml': [
    '$schema: ../.callbench/schemas/persona.json',
    'key: frank',
    'name: Frank Impatient',
    'prompt: You are Frank. You want your refund now.',
    'tags:',
    '  - refunds',
    '',
  ].join('\n'),
  'personas/ruth.yaml': [
    '$schema: ../.callbench/schemas/persona.json',
    'key: ruth',
    'name: Ruth Calm',
    'prompt: You are Ruth. You ask where your parcel is.',
    '',
  ].join('\n'),
  'tools/ord-lookup.yaml': [
    '$schema: ../.callbench/schemas/tool.json',
    'key: ord-lookup',
    'name: ord_lookup',
    'description: Looks an order up',
    'type: api',
    'config:',
    '  method: GET',
    '  url: http://127.0.0.1:9/orders',
    '  auth:',
    '    type: bearer',
    `    token: \${secret:${SECRET}}`,
    'parameters: []',
    '',
  ].join('\n'),
  // Never a suite file: the page leaves hidden folders out.
  '.git/HEAD': 'ref: refs/heads/main\n',
};

/** A scorecard checking the tool is called: what brings the (engine-wide) tool into an export. */
const SCORECARD: Record<string, string> = {
  'scorecards/order-checks.yaml': [
    '$schema: ../.callbench/schemas/scorecard.json',
    'key: order-checks',
    'name: Order checks',
    'metrics:',
    '  - name: Looks the order up',
    '    category: tools',
    '    weight: 1',
    '    critical: false',
    '    type: tool_called',
    '    config:',
    '      tool: ord_lookup',
    '',
  ].join('\n'),
};

/** Writes `files` under a new temporary folder named `suite`; answers the folder. */
function writeSuite(files: Record<string, string>): { dir: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'callbench-suite-e2e-'));
  const dir = join(root, 'suite');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** The HTTP API with serve's key; answers the body whatever the status. */
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
    return json;
  };
}

async function workspacePath(serve: ServeHandle): Promise<string> {
  const workspaces = await apiOf(serve)('GET', '/api/v1/workspaces');
  return `/api/v1/workspaces/${workspaces.data.workspaces[0].id as string}`;
}

/** axe-core's serious and critical violations on the page as it is (the open dialog). */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} — ${n.failureSummary}`));
}

/** Opens one of the workspace menu's entries. */
async function workspaceMenu(page: Page, entry: 'Export suite…' | 'Import suite…') {
  await page.getByRole('combobox', { name: 'Workspace' }).click();
  await page.getByRole('option', { name: entry }).click();
}

/** "Choose folder…" clicked, and the folder picked in the chooser it opens. */
async function chooseFolder(page: Page, dialog: Locator, dir: string) {
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Choose folder…' }).click();
  await (await chooser).setFiles(dir);
}

/** Import…, then the folder picked: answers the dialog, its plan read. */
async function importFolder(page: Page, dir: string) {
  await workspaceMenu(page, 'Import suite…');
  const dialog = page.getByRole('dialog', { name: /Import a suite/ });
  await chooseFolder(page, dialog, dir);
  await expect(dialog.getByRole('region', { name: 'Plan' })).toBeVisible();
  return dialog;
}

/**
 * The suite (with a scorecard naming the tool, so that the engine-wide tool is exported) applied
 * through the API; answers the engine's own export of it, by path.
 */
async function appliedSuite(serve: ServeHandle): Promise<Record<string, string>> {
  const api = apiOf(serve);
  const ws = await workspacePath(serve);
  const files = Object.entries({ ...SUITE, ...SCORECARD })
    .filter(([path]) => !path.startsWith('.'))
    .map(([path, content]) => ({ path, content }));
  const applied = await api('POST', `${ws}/suite/apply`, {
    files,
    secrets: { [SECRET]: TOKEN_VALUE },
  });
  expect(applied.data?.applied).toBe(true);
  const exported = await api('POST', `${ws}/suite/export`, {});
  return Object.fromEntries(
    (exported.data.files as { path: string; content: string }[]).map((f) => [f.path, f.content]),
  );
}

/**
 * The folder the tester would pick, as the page's origin-private file system: the directory
 * picker (which no test can drive) answers its root, seeded with a file of a persona deleted
 * since the last export and a file of the tester's own.
 */
async function pickOriginPrivateFolder(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as {
      showDirectoryPicker: () => Promise<FileSystemDirectoryHandle>;
    };
    w.showDirectoryPicker = () => navigator.storage.getDirectory();
  });
}

async function seedFolder(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const write = async (dir: FileSystemDirectoryHandle, name: string, text: string) => {
      const out = await (await dir.getFileHandle(name, { create: true })).createWritable();
      await out.write(text);
      await out.close();
    };
    const personas = await root.getDirectoryHandle('personas', { create: true });
    await write(personas, 'gone.yaml', 'key: gone\n');
    await write(root, 'NOTES.md', 'mine\n');
  });
}

/** Every file of the origin-private folder, by path, as text. */
async function folderFiles(page: Page): Promise<Record<string, string>> {
  return page.evaluate(async () => {
    type Listable = FileSystemDirectoryHandle & {
      entries(): AsyncIterable<[string, FileSystemHandle]>;
    };
    const out: Record<string, string> = {};
    const walk = async (dir: Listable, prefix: string): Promise<void> => {
      for await (const [name, handle] of dir.entries())
        if (handle.kind === 'directory') await walk(handle as Listable, `${prefix}${name}/`);
        else
          out[`${prefix}${name}`] = await (await (handle as FileSystemFileHandle).getFile()).text();
    };
    await walk(await navigator.storage.getDirectory(), '');
    return out;
  });
}

test.describe('suite import and export', () => {
  let serve: ServeHandle;
  test.beforeEach(async () => {
    serve = await startServe();
  });
  test.afterEach(async ({ page }) => {
    // The page's event stream would hold serve open: the page goes first.
    await page.close();
    await serve?.stop();
  });

  test('import: the plan, the secrets form, confirming, the resources; an edit is an update naming its field', async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const suite = writeSuite(SUITE);
    try {
      await openApp(page, serve);
      const dialog = await importFolder(page, suite.dir);
      await expect(dialog.getByText('4 files read')).toBeVisible();
      // A tool created without its token's value: the problem names the field, at its place.
      const problems = dialog.getByRole('alert');
      await expect(problems).toContainText(/tools\/ord-lookup\.yaml:11:\d+/);
      await expect(problems).toContainText('config.auth.token');
      await expect(dialog.getByRole('button', { name: 'Apply…' })).toBeDisabled();
      await shot(page, 'suite-import-missing-secret');

      await dialog.getByLabel(SECRET).fill(TOKEN_VALUE);
      await expect(dialog.getByRole('button', { name: 'Apply…' })).toBeDisabled();
      await dialog.getByRole('button', { name: 'Plan again' }).click();
      const plan = dialog.getByRole('region', { name: 'Plan' });
      await expect(plan.getByRole('status')).toHaveText('3 to create');
      const creates = plan.getByRole('region', { name: 'To create' });
      await expect(creates).toContainText('frank');
      await expect(creates).toContainText('Frank Impatient');
      await expect(creates).toContainText('personas/ruth.yaml');
      await expect(creates).toContainText('ord-lookup');
      await shot(page, 'suite-import-plan');

      // Nothing is written before the confirmation.
      const ws = await workspacePath(serve);
      const before = await apiOf(serve)('GET', `${ws}/personas`);
      expect(before.data.personas).toHaveLength(0);
      await dialog.getByRole('button', { name: 'Apply…' }).click();
      const confirm = page.getByRole('dialog', { name: /Apply the suite to/ });
      await expect(confirm).toContainText('3 to create');
      await shot(page, 'suite-import-confirm');
      await confirm.getByRole('button', { name: 'Apply', exact: true }).click();
      await expect(dialog.getByRole('status')).toContainText('Applied to');
      await dialog.getByRole('button', { name: 'Close' }).click();

      await section(page, 'Personas');
      await expect(page.getByText('Frank Impatient')).toBeVisible();
      await expect(page.getByText('Ruth Calm')).toBeVisible();
      await shot(page, 'suite-imported-personas');
      await section(page, 'Tools');
      await expect(page.getByText('ord_lookup')).toBeVisible();

      // The file edited and picked again: an update naming the field, the rest unchanged.
      writeFileSync(
        join(suite.dir, 'personas/frank.yaml'),
        SUITE['personas/frank.yaml']!.replace('refund now', 'refund today'),
      );
      const again = await importFolder(page, suite.dir);
      const updated = again.getByRole('region', { name: 'To update' });
      await expect(updated).toContainText('frank');
      await expect(updated).toContainText('Changes: prompt');
      await expect(again.getByRole('region', { name: 'Plan' }).getByRole('status')).toHaveText(
        /1 to update · \d+ unchanged/,
      );
      await shot(page, 'suite-import-update');

      // Ruth's file gone: left alone without Prune, deleted with it (the tool never is).
      rmSync(join(suite.dir, 'personas/ruth.yaml'));
      // Picked again in the same dialog.
      const pruning = again;
      await chooseFolder(page, pruning, suite.dir);
      await expect(pruning.getByText('3 files read')).toBeVisible();
      const pruned = pruning.getByRole('region', { name: 'Plan' });
      await expect(pruned.getByRole('status')).toHaveText('1 to update · 1 unchanged');
      await pruning.getByLabel(/^Prune/).check();
      // The workspace's default scorecard too: no file defines it.
      await expect(pruned.getByRole('status')).toHaveText(
        '1 to update · 2 to delete · 1 unchanged',
      );
      await expect(pruned.getByRole('region', { name: 'To delete' })).toContainText('Ruth Calm');
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, 'suite-import-prune');
      expect(errors).toEqual([]);
    } finally {
      suite.remove();
    }
  });

  test('a suite with a problem shows it at file:line:column and applies nothing', async ({
    page,
  }) => {
    const suite = writeSuite({
      'callbench.yaml': SUITE['callbench.yaml']!.replace(
        `secrets:\n  - ${SECRET}\n`,
        'secrets: []\n',
      ),
      'personas/frank.yaml': SUITE['personas/frank.yaml']!,
      'personas/bad.yaml': [
        '$schema: ../.callbench/schemas/persona.json',
        'key: bad',
        'name: Bad',
        'prompt: You are bad.',
        'mood: angry',
        '',
      ].join('\n'),
    });
    try {
      await openApp(page, serve);
      const dialog = await importFolder(page, suite.dir);
      const problems = dialog.getByRole('alert');
      await expect(problems).toContainText('1 problem');
      const inBad = problems.getByRole('region', { name: 'Problems in personas/bad.yaml' });
      await expect(inBad).toContainText('personas/bad.yaml:5:1');
      await expect(inBad).toContainText('mood');
      await expect(dialog.getByRole('button', { name: 'Apply…' })).toBeDisabled();
      await shot(page, 'suite-import-problem');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      const ws = await workspacePath(serve);
      const personas = await apiOf(serve)('GET', `${ws}/personas`);
      expect(personas.data.personas).toHaveLength(0);
    } finally {
      suite.remove();
    }
  });

  test('an apply the engine refuses (what only the writing finds) shows its problems and applies nothing', async ({
    page,
  }) => {
    // The plan reads the cron expression as text; only the schedule's write refuses it.
    const suite = writeSuite({
      'callbench.yaml': 'name: Nightly suite\nagents: []\nsecrets: []\n',
      'scenarios/refund.yaml': 'key: refund\nname: Refund\nprompt: Ask for a refund.\n',
      'schedules/nightly.yaml': [
        'key: nightly',
        'name: Nightly',
        'scenarioId: refund',
        'periodicity: "99 99 * * *"',
        'timezone: UTC',
        '',
      ].join('\n'),
    });
    try {
      await openApp(page, serve);
      const dialog = await importFolder(page, suite.dir);
      await expect(dialog.getByRole('region', { name: 'Plan' }).getByRole('status')).toHaveText(
        '2 to create',
      );
      await dialog.getByRole('button', { name: 'Apply…' }).click();
      await page
        .getByRole('dialog', { name: /Apply the suite to/ })
        .getByRole('button', { name: 'Apply', exact: true })
        .click();
      const refused = dialog.getByRole('alert');
      await expect(refused).toContainText('nothing was applied');
      await expect(refused).toContainText('schedules/nightly.yaml:4:14');
      await expect(refused).toContainText('periodicity');
      await expect(dialog.getByRole('button', { name: 'Apply…' })).toBeDisabled();
      await shot(page, 'suite-import-refused');

      const ws = await workspacePath(serve);
      const scenarios = await apiOf(serve)('GET', `${ws}/scenarios`);
      expect(scenarios.data.scenarios).toHaveLength(0);
    } finally {
      suite.remove();
    }
  });

  test('export downloads a .zip of the engine’s suite files, secrets as placeholders', async ({
    page,
  }, testInfo) => {
    const want = await appliedSuite(serve);
    await openApp(page, serve);
    await workspaceMenu(page, 'Export suite…');
    const dialog = page.getByRole('dialog', { name: /Export/ });
    await shot(page, 'suite-export');
    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download .zip' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/-suite\.zip$/);
    const saved = testInfo.outputPath('suite.zip');
    await download.saveAs(saved);
    await expect(dialog.getByRole('status')).toContainText('Downloaded');

    const unzipped = Object.fromEntries(
      Object.entries(unzipSync(readFileSync(saved))).map(([path, bytes]) => [
        path,
        strFromU8(bytes),
      ]),
    );
    // The zip holds exactly what the engine exported, byte for byte.
    expect(unzipped).toEqual(want);
    expect(Object.keys(unzipped)).toEqual(
      expect.arrayContaining(['callbench.yaml', 'personas/frank.yaml', 'tools/ord-lookup.yaml']),
    );
    expect(unzipped['personas/frank.yaml']).toContain('key: frank');
    expect(unzipped['tools/ord-lookup.yaml']).toContain(`\${secret:${SECRET}}`);
    expect(Object.values(unzipped).join('\n')).not.toContain(TOKEN_VALUE);
  });

  test('export into a folder writes the files and removes the suite files it did not write', async ({
    page,
  }) => {
    const want = await appliedSuite(serve);
    await pickOriginPrivateFolder(page);
    await openApp(page, serve);
    await seedFolder(page);
    await workspaceMenu(page, 'Export suite…');
    const dialog = page.getByRole('dialog', { name: /Export/ });
    await dialog.getByRole('button', { name: 'Save to folder…' }).click();
    await expect(dialog.getByRole('status')).toContainText(
      `Saved ${Object.keys(want).length} files`,
    );
    // The export as it is, the deleted persona's file gone, the tester's own file kept.
    expect(await folderFiles(page)).toEqual({ ...want, 'NOTES.md': 'mine\n' });
  });
});
