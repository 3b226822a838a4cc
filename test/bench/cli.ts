import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/server.js';
import { alternate, median, round, type Figure } from './harness.js';

const run = promisify(execFile);
const CLI = 'src/cli/callbench.mjs';
/** Interleaved runs per command: the median of 9 shrugs off a few disturbed ones. */
const ROUNDS = 9;

/** Wall time of one process from spawn to exit, in ms. */
async function wall(args: string[]): Promise<number> {
  const start = performance.now();
  await run(process.execPath, args, { encoding: 'utf8' });
  return performance.now() - start;
}

/** Starts `serve` on a free port and an empty data dir; answers once it is listening. */
function serve(dataDir: string): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening`)));
  });
}

/** From SIGTERM to the exit of an idle `serve`, in ms. */
async function idleStop(): Promise<number> {
  const dataDir = tempDir();
  try {
    const child = await serve(dataDir);
    child.removeAllListeners('exit');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const start = performance.now();
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`serve exited ${code} on SIGTERM`);
    return performance.now() - start;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const ratioFigure = (name: string, value: number, goal: number, detail: string): Figure => ({
  name,
  value: round(value, 1),
  goal: `<= ${goal}x`,
  met: value <= goal,
  detail,
});

/**
 * `npm run bench cli`: how fast the command starts, against a bare `node -e 0` measured in the same
 * rounds (interleaved), and how fast an idle engine stops on SIGTERM.
 */
export async function cliBench(): Promise<Figure[]> {
  const dataDir = tempDir();
  try {
    // Builds the bundle when stale and makes the store: neither is what a start costs.
    await run(process.execPath, [CLI, 'keys', 'create', '--label', 'bench', '--data-dir', dataDir]);
    const times = await alternate(ROUNDS, {
      node: () => wall(['-e', '0']),
      version: () => wall([CLI, '--version']),
      keys: () => wall([CLI, 'keys', 'list', '--data-dir', dataDir]),
    });
    const stops: number[] = [];
    for (let i = 0; i < 3; i++) stops.push(await idleStop());
    const stop = median(stops);
    const ms = (n: number) => `${round(n, 0)} ms`;
    return [
      ratioFigure(
        'callbench --version vs node -e 0',
        times.version / times.node,
        5,
        `${ms(times.version)} vs ${ms(times.node)} (wall, median of ${ROUNDS})`,
      ),
      ratioFigure(
        'callbench keys list vs node -e 0',
        times.keys / times.node,
        10,
        `${ms(times.keys)} vs ${ms(times.node)} (wall, median of ${ROUNDS})`,
      ),
      {
        name: 'idle serve: SIGTERM to exit (ms)',
        value: round(stop, 0),
        goal: '<= 2000',
        met: stop <= 2000,
        detail: `median of ${stops.map((s) => round(s, 0)).join(', ')} ms`,
      },
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
