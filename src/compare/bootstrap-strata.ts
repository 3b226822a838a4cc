/*
 * The strata a stratified bootstrap resamples within. Pairs are drawn within their scenario ×
 * persona group, so that a resample keeps each group's size, except for groups of a single pair:
 * a stratum of one pair always resamples to itself, so it carries no information about its own
 * spread and adds none to the interval. With one run per group every stratum would be such a one
 * and the interval would collapse to zero width around the observed difference. Those groups are
 * pooled into one stratum instead: their pairs are resampled among themselves, which treats the
 * groups as exchangeable (their spread between groups stands in for the spread within them).
 * Groups of two or three stay their own strata and still see only (k − 1)/k of their variance.
 */

/** Items in resampling order: each stratum's members contiguous, `offsets` its bounds. */
export interface Strata<T> {
  /** The items in stratum order; within a stratum as `order` sorts them. */
  items: T[];
  /** Stratum s holds items[offsets[s]] .. items[offsets[s + 1] − 1]. */
  offsets: Int32Array;
  /** The group of each stratum, or null for the pooled groups of one item (always last). */
  groups: (string | null)[];
}

/**
 * The strata of grouped items: groups of two or more in key order, each its own stratum, then the
 * groups of one item pooled into a last stratum (when there are any). `order` sorts the items
 * within a stratum, so the order a caller read them in does not move the interval.
 */
export function strataOf<T>(
  items: readonly T[],
  groupOf: (item: T) => string,
  order: (a: T, b: T) => number,
): Strata<T> {
  const byGroup = new Map<string, T[]>();
  for (const item of items) {
    const key = groupOf(item);
    const members = byGroup.get(key);
    if (members) members.push(item);
    else byGroup.set(key, [item]);
  }
  const keys = [...byGroup.keys()].sort();
  const stratumMembers: T[][] = [];
  const groups: (string | null)[] = [];
  const singles: T[] = [];
  for (const key of keys) {
    const members = byGroup.get(key)!;
    if (members.length === 1) singles.push(members[0]!);
    else {
      stratumMembers.push(members.sort(order));
      groups.push(key);
    }
  }
  if (singles.length > 0) {
    // Ties between groups' values keep the groups' key order (a stable sort): still order-free.
    stratumMembers.push(singles.sort(order));
    groups.push(null);
  }
  const offsets = new Int32Array(stratumMembers.length + 1);
  stratumMembers.forEach((members, s) => (offsets[s + 1] = offsets[s]! + members.length));
  return { items: stratumMembers.flat(), offsets, groups };
}
