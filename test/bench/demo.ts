import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDir } from '../helpers/server.js';
import { round, type Figure } from './harness.js';

const CLI = 'src/cli/callbench.mjs';
const GOAL_S = 60;

/** `serve` as a user starts it on an empty data dir (no model, no key for any provider). */
function serve(dataDir: string, key: string) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, CALLBENCH_API_KEY: key, CALLBENCH_LLM_BASE_URL: '' },
  });
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening`)));
  });
  return { child, url };
}

interface Execution {
  status: string;
  pass_rate: number | null;
}

/** From "Run the demo" (POST /v1/demo) to both executions ended: seconds, and whether both passed. */
async function demoRun(url: string, key: string): Promise<{ seconds: number; passed: boolean }> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const start = performance.now();
  const res = await fetch(`${url}/v1/demo`, { method: 'POST', headers, body: '{}' });
  const made = (await res.json()) as { workspaceId: string; executionIds: string[] };
  const ended = await Promise.all(
    made.executionIds.map(async (id) => {
      for (;;) {
        const r = await fetch(
          `${url}/api/v1/workspaces/${made.workspaceId}/executions/${id}?wait=30`,
          { headers },
        );
        const { execution } = ((await r.json()) as { data: { execution: Execution } }).data;
        if (execution.status !== 'running') return execution;
      }
    }),
  );
  return {
    seconds: (performance.now() - start) / 1000,
    passed: ended.every((e) => e.status === 'completed' && e.pass_rate === 100),
  };
}

/**
 * `npm run bench demo`: a tester's first run, timed as they live it: from the click on "Run the
 * demo" to both executions (text and audio) completed and passed, on a fresh engine with no
 * model configured and nothing reachable but loopback. An absolute goal: it is what a person
 * waits for.
 */
export async function demoBench(): Promise<Figure[]> {
  const dataDir = tempDir();
  const key = `cbk_bench_${Math.random().toString(36).slice(2)}`;
  const { child, url } = serve(dataDir, key);
  try {
    const { seconds, passed } = await demoRun(await url, key);
    return [
      {
        name: 'demo: click to both executions passed (fresh engine, no model)',
        value: round(seconds, 1),
        goal: `< ${GOAL_S} s, both passed`,
        met: seconds < GOAL_S && passed,
        detail: passed ? 'text and audio passed' : 'an execution did not pass',
      },
    ];
  } finally {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}
