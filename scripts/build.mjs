// Builds what is stale: the renderer (vite), the desktop bundles (esbuild: main and preload) and
// the CLI's bundle (esbuild, src/cli/bundle.mjs). `node scripts/build.mjs renderer|desktop|cli|all`
// (all: renderer and desktop, what the app runs; `callbench` builds its own bundle when stale); a
// target is rebuilt only when a source is newer than its output, so `npm run serve` and `npm start`
// stay quick when nothing changed.
import { build as esbuild } from 'esbuild';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build as vite } from 'vite';
import { buildCli } from '../src/cli/bundle.mjs';

const newest = (paths) =>
  Math.max(
    0,
    ...paths.flatMap((p) =>
      !existsSync(p)
        ? []
        : statSync(p).isDirectory()
          ? readdirSync(p, { recursive: true })
              .map((f) => join(p, String(f)))
              .filter((f) => statSync(f).isFile())
              .map((f) => statSync(f).mtimeMs)
          : [statSync(p).mtimeMs],
    ),
  );
const stale = (output, sources) =>
  !existsSync(output) || statSync(output).mtimeMs < newest(sources);

const targets = {
  async renderer(force) {
    if (
      !force &&
      !stale('dist/renderer/index.html', ['renderer', 'preload/api.ts', 'vite.config.ts'])
    )
      return false;
    // Always the production build, whatever NODE_ENV the caller runs under (vitest sets "test"):
    // React and its JSX transform both follow NODE_ENV, and must agree.
    process.env.NODE_ENV = 'production';
    await vite({ configFile: 'vite.config.ts', logLevel: 'warn', mode: 'production' });
    return true;
  },
  async desktop(force) {
    if (!force && !stale('dist/main/index.mjs', ['main', 'preload', 'src', 'package.json']))
      return false;
    // Main is ESM (the engine's packages are). The engine's model thread is started from a file of
    // its own beside it, with its SDKs inside, so that it needs nothing resolved from node_modules.
    const shared = {
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      sourcemap: true,
      logLevel: 'warning',
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    };
    await esbuild({
      ...shared,
      entryPoints: ['main/index.ts'],
      outfile: 'dist/main/index.mjs',
      packages: 'external',
    });
    await esbuild({
      ...shared,
      entryPoints: ['src/llm/model-worker.ts'],
      outfile: 'dist/main/model-worker.mjs',
    });
    // A comparison's voice bootstrap runs on a thread of its own (src/compare/compare-thread.ts).
    await esbuild({
      ...shared,
      entryPoints: ['src/compare/compare-worker.ts'],
      outfile: 'dist/main/compare-worker.mjs',
    });
    // Imported calls are scored on threads of their own (src/simulations/score-threads.ts).
    await esbuild({
      ...shared,
      entryPoints: ['src/simulations/score-worker.ts'],
      outfile: 'dist/main/score-worker.mjs',
    });
    // Silero VAD runs on a thread of its own; its ONNX runtime is native, so it stays external.
    await esbuild({
      ...shared,
      entryPoints: ['src/audio/silero-worker.ts'],
      outfile: 'dist/main/silero-worker.mjs',
      packages: 'external',
    });
    // The frames of audio calls run on threads of their own (src/voice/audio-threads.ts).
    await esbuild({
      ...shared,
      entryPoints: ['src/voice/audio-worker.ts'],
      outfile: 'dist/main/audio-worker.mjs',
      packages: 'external',
    });
    // SQLite tool queries run in a process of their own, killed at the tool's timeout.
    await esbuild({
      ...shared,
      entryPoints: ['src/tools/sqlite-reader.ts'],
      outfile: 'dist/main/sqlite-reader.mjs',
      packages: 'external',
    });
    await esbuild({
      entryPoints: ['preload/index.ts'],
      outfile: 'dist/preload/index.cjs',
      bundle: true,
      platform: 'node',
      format: 'cjs',
      external: ['electron'],
      logLevel: 'warning',
    });
    return true;
  },
  // The `callbench` command's bundle (built by `npm ci`'s prepare script). Named by its sources,
  // it is never stale, so --force has nothing to redo.
  async cli() {
    return (await buildCli(process.cwd())).built;
  },
};

const wanted = process.argv[2] ?? 'all';
const force = process.argv.includes('--force');
for (const name of wanted === 'all' ? ['renderer', 'desktop'] : [wanted]) {
  if (!targets[name])
    throw new Error(`unknown build target ${name}: renderer, desktop, cli or all`);
  if (await targets[name](force)) console.error(`built ${name}`);
}
