import { spawn } from 'node:child_process';
import { tempDir } from './server.js';

/** The real CLI in a child process; async, so that the server in this process keeps answering. */
export function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli/callbench.mjs', ...args], {
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/**
 * `serve` on a team database until it says where it listens, then stopped as a service manager
 * would (SIGTERM); answers its output. Only `env` reaches it: no CALLBENCH_* of the run leaks in.
 */
export function serveOnce(databaseUrl: string, env: Record<string, string>): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      'src/cli/callbench.mjs',
      'serve',
      '--port',
      '0',
      '--data-dir',
      tempDir(),
      '--database',
      databaseUrl,
    ],
    { env: { PATH: process.env.PATH, HOME: tempDir(), ...env } },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Once: a second SIGTERM (at a line printed while stopping) would kill it outright.
      if (out.includes('listening on') && !child.killed) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`)),
    );
  });
}
