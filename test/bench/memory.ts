/**
 * Peak memory of a benchmark process, sampled from its start until stop().
 * `rss`: resident memory above the start, every 10 ms. `live` (the process runs with --expose-gc):
 * what is still reachable, heap and external, after a full collection every 100 ms; this is what
 * grows when work is held instead of streamed, whatever V8 decides about the size of its heap.
 */
export function memorySampler(measure: 'rss' | 'live' = 'rss'): { stop(): number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (measure === 'live' && !gc) throw new Error('live memory needs node --expose-gc');
  let peak = 0;
  const base = process.memoryUsage().rss;
  const timer = measure === 'live'
    ? setInterval(() => {
      gc!();
      const m = process.memoryUsage();
      peak = Math.max(peak, m.heapUsed + m.external);
    }, 100)
    : setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - base)), 10);
  return {
    /** Stops sampling; answers the peak in MB. */
    stop() {
      clearInterval(timer);
      return peak / 2 ** 20;
    },
  };
}
