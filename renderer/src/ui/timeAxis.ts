/** The call timeline's axis: where its ticks go and what they say (kept apart from React). */

/** A round step between axis ticks giving at most about eight ticks over `totalMs`. */
export function tickStepMs(totalMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600].map((s) => s * 1000);
  return steps.find((s) => totalMs / s <= 8) ?? 1_200_000;
}

/** "0 s", "15 s", "1:30": the axis's labels. */
export function tickLabel(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
