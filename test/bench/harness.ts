import autocannon from 'autocannon';

export interface Figure {
  name: string;
  value: number;
  goal: string;
  met: boolean;
  detail: string;
}

/** Requests per second of one URL over a fixed time, with keep-alive connections. */
export async function throughput(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  paths?: () => string,
): Promise<number> {
  const requests = paths
    ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths() }) }]
    : undefined;
  const result = await autocannon({
    url,
    headers,
    connections: 10,
    duration: seconds,
    pipelining: 1,
    requests,
  } as autocannon.Options);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
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
