#!/usr/bin/env node
// The `callbench` command. It runs the CLI's built bundle (see bundle.mjs): made by `npm ci` (the
// `prepare` script) and made again here, once, when the sources changed since, so a start costs a
// few milliseconds of stat calls more than the bundle itself. Where no bundle can be built (no
// esbuild, a read-only copy), the TypeScript sources run through tsx, slower but the same.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCli, buildFailure, bundleDirOf, markInUse } from './bundle.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The CLI from its bundle, built first when stale; null when it cannot be built. */
async function fromBundle() {
  const dir = bundleDirOf(root);
  // Marked before it is looked for: a build of newer sources running meanwhile leaves it alone.
  markInUse(dir);
  try {
    if ((await buildCli(root, dir)).built) markInUse(dir);
  } catch (err) {
    console.error(
      `callbench: the CLI bundle could not be built (${buildFailure(err)}); running from the sources`,
    );
    return null;
  }
  return import(pathToFileURL(join(dir, 'main.mjs')).href);
}

async function fromSources() {
  const { register } = await import('tsx/esm/api');
  register();
  return import('./main.ts');
}

const { main } = (await fromBundle()) ?? (await fromSources());
process.exitCode = await main(process.argv.slice(2));
