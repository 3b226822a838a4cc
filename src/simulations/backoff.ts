/**
 * Waits that double after each failure in a row (from `firstMs` to `maxMs`) and reset after a
 * success: work that fails while the database is unreachable is retried ever less often, and said
 * once per failure instead of once per poll.
 */
export function createBackoff(firstMs = 1_000, maxMs = 30_000) {
  let failures = 0;
  let until = 0;
  return {
    /** Whether the wait after the last failure still runs. */
    waiting: (): boolean => Date.now() < until,
    /** Records a failure; answers how long until the next try. */
    failed(): number {
      const wait = Math.min(maxMs, firstMs * 2 ** failures++);
      until = Date.now() + wait;
      return wait;
    },
    /** Records a success; answers whether it ends a run of failures. */
    succeeded(): boolean {
      const recovered = failures > 0;
      failures = 0;
      until = 0;
      return recovered;
    },
  };
}
