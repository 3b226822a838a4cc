/**
 * Peak memory of a benchmark process, sampled from its start until stop().
 * `rss`: resident memory above the start, every 10 ms. `live` (the process runs with --expose-gc):
 * what is still reachable, heap and external, after a full collection every 100 ms; this is what
 * grows when work is held instead of streamed, whatever V8 decides about the size of its heap.
 */
export function memorySampler(measure: 'rss' | 'live' = 'rss'): {
  stop(): number;
  include(elsewhere: () => Promise<number>): void;
} {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (measure === 'live' && !gc) throw new Error('live memory needs node --expose-gc');
  let peak = 0;
  let elsewhere: (() => Promise<number>) | null = null;
  const base = process.memoryUsage().rss;
  const timer =
    measure === 'live'
      ? setInterval(() => {
          gc!();
          const m = process.memoryUsage();
          const here = m.heapUsed + m.external;
          if (!elsewhere) peak = Math.max(peak, here);
          else void elsewhere().then((there) => (peak = Math.max(peak, here + there)));
        }, 100)
      : setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - base)), 10);
  return {
    /** Live heaps outside this thread (worker threads) to count with its own. */
    include(fn) {
      elsewhere = fn;
    },
    /** Stops sampling; answers the peak in MB. */
    stop() {
      clearInterval(timer);
      return peak / 2 ** 20;
    },
  };
}
