import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LoadPlan } from './load-client.js';

const run = promisify(execFile);

export interface Figure {
  name: string;
  value: number;
  goal: string;
  met: boolean;
  detail: string;
}

/**
 * Requests per second of one URL over a fixed time, with keep-alive connections. The client runs
 * in a child process: sharing the servers' event loop, its own work would blur the difference
 * between two servers.
 */
export async function throughput(plan: LoadPlan): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'test/bench/load-client.ts', JSON.stringify(plan)],
    { encoding: 'utf8' },
  );
  const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
    rps: number;
    non2xx: number;
    errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${plan.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.rps;
}

/** Median of several alternated measurements, so that machine noise hits both sides alike. */
export async function alternate<T extends string>(
  rounds: number,
  sides: Record<T, () => Promise<number>>,
): Promise<Record<T, number>> {
  const samples = Object.fromEntries(Object.keys(sides).map((k) => [k, [] as number[]])) as Record<
    T,
    number[]
  >;
  for (let i = 0; i < rounds; i++) {
    for (const [name, run] of Object.entries(sides) as [T, () => Promise<number>][])
      samples[name].push(await run());
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, median(v as number[])]),
  ) as Record<T, number>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Wall time of `count` sequential calls, in ms per call. */
export async function perCall(count: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, count); i++) await fn(); // warm-up
  const start = performance.now();
  for (let i = 0; i < count; i++) await fn();
  return (performance.now() - start) / count;
}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
