/**
 * Synthesised speech kept by key, evicting the least recently used once the total PCM size passes
 * the budget: scripted lines repeat across a batch of simulations, and re-synthesising them would
 * spend cores (or a cloud bill) on audio we already have.
 */
export interface PcmCache {
  get(key: string): Int16Array | undefined;
  set(key: string, pcm: Int16Array): void;
  readonly bytes: number;
}

export function createPcmCache(budgetBytes: number): PcmCache {
  // A Map iterates in insertion order, so re-inserting on every read keeps the oldest first.
  const entries = new Map<string, Int16Array>();
  let bytes = 0;
  const sizeOf = (key: string, pcm: Int16Array): number => pcm.byteLength + key.length * 2;

  const evictOldest = (): void => {
    const first = entries.entries().next();
    if (first.done) return;
    const [key, pcm] = first.value;
    entries.delete(key);
    bytes -= sizeOf(key, pcm);
  };

  return {
    get(key) {
      const pcm = entries.get(key);
      if (pcm === undefined) return undefined;
      entries.delete(key);
      entries.set(key, pcm);
      return pcm;
    },
    set(key, pcm) {
      const size = sizeOf(key, pcm);
      if (size > budgetBytes) return;
      const old = entries.get(key);
      if (old !== undefined) {
        entries.delete(key);
        bytes -= sizeOf(key, old);
      }
      while (bytes + size > budgetBytes && entries.size > 0) evictOldest();
      entries.set(key, pcm);
      bytes += size;
    },
    get bytes() {
      return bytes;
    },
  };
}
