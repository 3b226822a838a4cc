// The CLI's built bundle: where it is for the sources as they are now, and how it is built.
// `callbench` runs it (plain JavaScript, loaded in tens of milliseconds) instead of compiling the
// TypeScript at every start through tsx.
//
// A bundle is named by a key of its sources: the path, mtime and size of everything under src/,
// of the folders themselves (a file added, removed or renamed changes its folder) and of
// package.json, package-lock.json and tsconfig.json. Computing it costs a few milliseconds of
// stat calls; any change gives another key, so a stale bundle is never run, and a build never
// overwrites a bundle another process is running: it is written to a folder of its own and
// renamed into place (atomic), then bundles nobody runs any more are removed.
//
// Layout: dist/cli-<key>/main.mjs and its lazy chunks (esbuild's splitting: every dynamic import
// of the CLI stays a chunk of its own, loaded only by the command that needs it), with the
// engine's worker entry points beside them (model-worker.mjs, silero-worker.mjs,
// sqlite-reader.mjs, compare-worker.mjs, audio-worker.mjs, score-worker.mjs): the engine finds
// them next to the module that starts them, as in the desktop bundle. The folder sits at the
// depth of dist/main/, so the engine's paths relative to its modules ('../../resources',
// '../../dist/renderer') resolve the same from the bundle as from src/.
import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

const KEYED_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];
const PREFIX = 'cli-';
const IN_USE = '.in-use-';

/** The key of the sources under `root` as they are now (see above). */
export function sourceKey(root) {
  const hash = createHash('sha1');
  const add = (path) => {
    try {
      const s = statSync(path);
      hash.update(`${path}\0${s.mtimeMs}\0${s.size}\n`);
      return s;
    } catch {
      hash.update(`${path}\0missing\n`);
      return null;
    }
  };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      add(path);
      if (entry.isDirectory()) walk(path);
    }
  };
  add(join(root, 'src'));
  walk(join(root, 'src'));
  for (const file of KEYED_FILES) add(join(root, file));
  return hash.digest('hex').slice(0, 16);
}

/** The bundle folder for the sources as they are now. */
export const bundleDirOf = (root) => join(root, 'dist', `${PREFIX}${sourceKey(root)}`);

/** The esbuild options of the CLI bundle, written to `outdir`. */
const buildOptions = (root, outdir) => ({
  absWorkingDir: root,
  entryPoints: {
    main: 'src/cli/main.ts',
    'model-worker': 'src/llm/model-worker.ts',
    'silero-worker': 'src/audio/silero-worker.ts',
    'sqlite-reader': 'src/tools/sqlite-reader.ts',
    'compare-worker': 'src/compare/compare-worker.ts',
    'score-worker': 'src/simulations/score-worker.ts',
    'audio-worker': 'src/voice/audio-worker.ts',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // node_modules stay where they are: native packages (better-sqlite3, onnxruntime-node) resolve
  // as usual, and the bundle is only our own code.
  packages: 'external',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  sourcemap: true,
  logLevel: 'silent',
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});

/** Why a build failed, in one line: esbuild's first error with its place, or the error's first line. */
export function buildFailure(err) {
  const first = err?.errors?.[0];
  if (!first) return String(err?.message ?? err).split('\n')[0];
  const at = first.location ? `${first.location.file}:${first.location.line}: ` : '';
  return `${at}${first.text}`;
}

/**
 * Builds the bundle of the sources under `root` unless it is there; answers its folder. Two
 * processes building at once both build, and the second to finish keeps the first's.
 */
export async function buildCli(root, dir = bundleDirOf(root)) {
  if (existsSync(join(dir, 'main.mjs'))) return { dir, built: false };
  const { build } = await import('esbuild');
  const scratch = join(root, 'dist', `.${PREFIX}build-${process.pid}-${Date.now()}`);
  try {
    await build(buildOptions(root, scratch));
    try {
      renameSync(scratch, dir);
    } catch (err) {
      // Another process put the same bundle in place meanwhile: it is as good as ours.
      if (!existsSync(join(dir, 'main.mjs'))) throw err;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  pruneBundles(root, dir);
  return { dir, built: true };
}

/** Is a process still running? (Signal 0 only checks.) */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Does a running `callbench` use this bundle (it may still load a chunk or start a worker)? */
const inUse = (dir) =>
  readdirSync(dir)
    .filter((name) => name.startsWith(IN_USE))
    .some((name) => alive(Number(name.slice(IN_USE.length))));

/** Removes the bundles of older sources that no running `callbench` uses, and failed builds. */
function pruneBundles(root, keep) {
  const dist = join(root, 'dist');
  for (const name of readdirSync(dist)) {
    const dir = join(dist, name);
    if (dir === keep || !(name.startsWith(PREFIX) || name.startsWith(`.${PREFIX}build-`))) continue;
    try {
      const pid = name.startsWith('.') ? Number(name.split('-')[2]) : null;
      if (pid !== null ? !alive(pid) : !inUse(dir)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone already, or another process prunes it: nothing to do.
    }
  }
}

/**
 * Marks the bundle as used by this process until it exits, so that a build of newer sources does
 * not remove it from under a running `serve`. Best effort: a read-only install is never pruned.
 */
export function markInUse(dir) {
  const mark = join(dir, `${IN_USE}${process.pid}`);
  try {
    writeFileSync(mark, '');
    process.once('exit', () => {
      try {
        unlinkSync(mark);
      } catch {
        // Already removed: nothing to do.
      }
    });
  } catch {
    // Not writable (an installed copy): nothing builds there either.
  }
}

/**
 * `npm ci`'s prepare script: builds the bundle, best effort. Where it cannot (an install without
 * the development tools), `callbench` runs from the sources and says so; the install goes on.
 */
export async function prepareCli(root = process.cwd()) {
  try {
    await buildCli(root);
  } catch (err) {
    console.error(`callbench: the CLI bundle was not built (${buildFailure(err)})`);
  }
}
