/*
 * The scorecard editor shows each metric without the id the engine gave it; saving sends the
 * metrics back with the ids of the stored ones they still are, matched by name (each stored id
 * used once). Without it every edit would make every metric new: its labels, its judge
 * calibration and its results in past runs would no longer be the same metric's.
 */

const nameOf = (m: unknown): unknown =>
  typeof m === 'object' && m !== null ? (m as { name?: unknown }).name : undefined;

export function withStoredIds(
  metrics: unknown[],
  stored: readonly { id: string; name: string }[],
): unknown[] {
  const free = [...stored];
  return metrics.map((m) => {
    if (typeof m !== 'object' || m === null || Array.isArray(m) || 'id' in m) return m;
    const at = free.findIndex((s) => s.name === nameOf(m));
    if (at < 0) return m;
    const [same] = free.splice(at, 1);
    return same ? { id: same.id, ...m } : m;
  });
}
