import { spawn, type ChildProcess } from 'node:child_process';
import { tempDir } from './server.js';

/** `callbench serve` in a child process, as a user starts it. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Its first API key, as printed. */
  key: string;
  /** Its output lines so far (stdout). */
  lines: string[];
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];

/** Kills what `serveProcess` started and is still running (for afterEach). */
export function killServeProcesses(): void {
  for (const c of started.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

/** `serve` on a free port and an empty data dir, once it says where it listens. */
export function serveProcess(env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['src/cli/callbench.mjs', 'serve', '--port', '0', '--data-dir', tempDir()],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } },
  );
  started.push(child);
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      const url = /listening on (http:\/\/\S+)/.exec(parts.join('\n'))?.[1];
      const key = /first API key.*: (cbk_\S+)/.exec(lines.join('\n'))?.[1];
      if (url && key) resolve({ child, url, key, lines, exited });
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${lines.join('\n')}`)));
  });
}

/** A JSON request to the served engine with its first key; answers the parsed body. */
export async function callServed<T>(
  s: ServeProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}
