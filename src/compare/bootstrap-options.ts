import type { Interval } from '../domain/comparisons.js';

/* What every bootstrap (./bootstrap.ts, ./bootstrap-shared.ts, ./voice-bootstrap.ts) takes and answers. */

export interface BootstrapResult {
  difference: number | null;
  interval: Interval | null;
}

/** Resamples of a score interval: the 10,000. */
export const DEFAULT_RESAMPLES = 10_000;

/** The confidence and resamples asked for (defaults 0.95 and 10,000), checked. */
export function settings(options: { confidence?: number; resamples?: number }): {
  confidence: number;
  resamples: number;
} {
  const { confidence = 0.95, resamples = DEFAULT_RESAMPLES } = options;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must lie strictly between 0 and 1, got ${confidence}`);
  }
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  }
  return { confidence, resamples };
}
