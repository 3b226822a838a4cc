import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';

const CLI = ['src/cli/callbench.mjs'];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function cli(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [...CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

/** Starts `serve` and resolves once it prints its ready line. */
function serve(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; output: string[] }> {
  const child = spawn(process.execPath, [...CLI, 'serve', ...args], {
    env: { ...process.env, ...env },
  });
  children.push(child);
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        output.push(line);
        const m = /listening on (http:\/\/\S+)/.exec(line);
        if (m) resolve({ child, url: m[1]!, output });
      }
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

describe('callbench command line', () => {
  it('serve prints one ready line with the real port and its first key; SIGTERM stops it with exit 0', async () => {
    const dir = tempDir();
    const { child, url, output } = await serve(['--port', '0', '--data-dir', dir]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output.filter((l) => l.includes('listening on'))).toHaveLength(1);
    const key = /first API key.*: (cbk_\S+)/.exec(output.join('\n'))![1]!;
    const res = await fetch(`${url}/api/v1/workspaces`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('reads CALLBENCH_PORT, CALLBENCH_DATA_DIR and CALLBENCH_API_KEY', async () => {
    const dir = tempDir();
    const probe = await serve(['--port', '0', '--data-dir', dir]);
    const port = new URL(probe.url).port;
    probe.child.kill('SIGTERM');
    await exited(probe.child);
    const { child, url } = await serve([], {
      CALLBENCH_PORT: port,
      CALLBENCH_DATA_DIR: dir,
      CALLBENCH_API_KEY: 'env-key-for-ci-123',
    });
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(
      (await fetch(`${url}/v1/tools`, { headers: { authorization: 'Bearer env-key-for-ci-123' } }))
        .status,
    ).toBe(200);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('a second serve on the same data dir refuses to start; keys and workspaces work beside the first', async () => {
    const dir = tempDir();
    const { child, url } = await serve(['--port', '0', '--data-dir', dir]);
    const second = cli(['serve', '--port', '0', '--data-dir', dir]);
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/Another Callbench engine \(pid \d+\) is already using/);

    const made = cli(['keys', 'create', '--label', 'ci', '--data-dir', dir]);
    expect(made.code).toBe(0);
    const key = made.out.trim();
    expect(key).toMatch(/^cbk_/);
    expect(
      (await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);

    const list = cli(['keys', 'list', '--data-dir', dir]);
    expect(list.out).toContain('\tci\t');
    expect(list.out).not.toContain(key);
    const id = list.out
      .split('\n')
      .find((l) => l.includes('\tci\t'))!
      .split('\t')[0]!;
    expect(cli(['keys', 'revoke', id, '--data-dir', dir]).code).toBe(0);
    expect(
      (await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(401);
    expect(cli(['keys', 'revoke', 'key_nope', '--data-dir', dir])).toMatchObject({
      code: 1,
      err: expect.stringContaining("API key 'key_nope' was not found"),
    });

    expect(cli(['workspaces', 'create', 'Team', 'B', '--data-dir', dir]).out).toMatch(
      /^ws_\S+\tTeam B/,
    );
    expect(cli(['workspaces', '--data-dir', dir]).out.trim().split('\n')).toHaveLength(2);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    // Eight CLI processes, each starting tsx and an engine: slow on a busy two-core machine.
  }, 60_000);

  it('a busy port and a damaged store are one clear line each, never a stack', async () => {
    const { createServer } = await import('node:net');
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address() as { port: number };
    const busy = cli(['serve', '--port', String(port), '--data-dir', tempDir()]);
    taken.close();
    expect(busy.code).toBe(1);
    expect(busy.err.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`port ${port} .*in use.*--port`, 'i')),
    ]);

    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/callbench.db`, 'not a database');
    const damaged = cli(['serve', '--port', '0', '--data-dir', dir]);
    expect(damaged.code).toBe(1);
    expect(damaged.err.trim().split('\n')).toEqual([
      expect.stringContaining('is not a Callbench store'),
    ]);
  });

  it('explains usage for unknown commands and bad options', () => {
    expect(cli(['frobnicate'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('Usage: callbench'),
    });
    expect(cli(['serve', '--port', 'abc', '--data-dir', tempDir()])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--port'),
    });
  });
});
