import { spawn, execFileSync } from 'node:child_process';
import { median, round, type Figure } from './harness.js';

const tsx = ['--import', 'tsx'];

async function fakeProvider(calls: number): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [...tsx, 'test/bench/fake-vapi-server.ts', String(calls)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d) => resolve(String(d).trim())),
  );
  return { url, stop: () => child.kill() };
}

const run = (url: string, mode: string, measure: 'rss' | 'live' = 'rss') =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        ...(measure === 'live' ? ['--expose-gc'] : []),
        ...tsx,
        'test/bench/provider-import.ts',
        url,
        mode,
        measure,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    )
      .trim()
      .split('\n')
      .pop()!,
  );

export async function providersBench(): Promise<Figure[]> {
  const results: Record<
    number,
    { calls: number; seconds: number; peakMb: number; liveMb: number }
  > = {};
  let bare = { calls: 0, seconds: 0 };
  for (const n of [5_000, 50_000]) {
    const provider = await fakeProvider(n);
    try {
      // Peak RSS moves by several MB between identical runs: the median of three is the figure.
      const runs = [
        run(provider.url, 'import'),
        run(provider.url, 'import'),
        run(provider.url, 'import'),
      ];
      const live = [
        run(provider.url, 'import', 'live'),
        run(provider.url, 'import', 'live'),
        run(provider.url, 'import', 'live'),
      ];
      results[n] = {
        calls: runs[0].calls,
        seconds: median(runs.map((r) => r.seconds)),
        peakMb: median(runs.map((r) => r.peakMb)),
        liveMb: median(live.map((r) => r.peakMb)),
      };
      if (n === 50_000) {
        // The same provider, paged and stored bare; the median of three, as the imports'.
        const bares = [
          run(provider.url, 'bare'),
          run(provider.url, 'bare'),
          run(provider.url, 'bare'),
        ];
        bare = { calls: bares[0].calls, seconds: median(bares.map((b) => b.seconds)) };
      }
    } finally {
      provider.stop();
    }
    if (results[n].calls !== n) throw new Error(`imported ${results[n].calls} of ${n} calls`);
  }
  const ours = results[50_000]!.calls / results[50_000]!.seconds;
  const baseline = bare.calls / bare.seconds;
  const memory = results[50_000]!.liveMb / results[5_000]!.liveMb;
  return [
    {
      name: 'import of 50,000 calls (20 turns, 2 tool calls each): calls/s vs a bare undici + JSON.parse + prepared-insert pipeline',
      value: round(ours / baseline),
      goal: '>= 0.6',
      met: ours / baseline >= 0.6,
      detail: `${Math.round(ours)} calls/s through the provider API against ${Math.round(baseline)} calls/s paged, parsed and inserted bare`,
    },
    {
      name: 'peak live memory of the import (reachable after a full GC, sampled every 100 ms), 50,000 vs 5,000 calls',
      value: round(memory),
      goal: '<= 1.5',
      met: memory <= 1.5,
      detail: `${round(results[50_000]!.liveMb, 1)} MB against ${round(results[5_000]!.liveMb, 1)} MB; peak RSS above start ${round(results[50_000]!.peakMb, 1)} MB against ${round(results[5_000]!.peakMb, 1)} MB, which follows V8's heap sizing, not what the import holds`,
    },
  ];
}
