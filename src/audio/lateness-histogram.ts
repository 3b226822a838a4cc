/**
 * Pacing lateness over a whole call in fixed memory: 0.1 ms bins up to 100 ms, then one overflow
 * count and the exact maximum. Percentiles are nearest-rank, reported as the upper edge of their
 * bin (never flattering by more than 0.1 ms), and never above the true maximum.
 */

/** The pacer's figures, which this histogram computes (here, so the pacer imports it one way). */
export interface PacingStats {
  frames: number;
  /** Lateness: when a frame was handed over minus when it was due, in ms. */
  lateP50Ms: number;
  lateP99Ms: number;
  lateMaxMs: number;
}

const BIN_MS = 0.1;
const BINS = 1000;

export class LatenessHistogram {
  private readonly bins = new Uint32Array(BINS);
  private count = 0;
  private max = 0;

  add(latenessMs: number): void {
    const late = Math.max(0, latenessMs);
    this.count++;
    this.max = Math.max(this.max, late);
    const bin = Math.floor(late / BIN_MS);
    if (bin < BINS) this.bins[bin]!++;
  }

  /** Nearest-rank percentile, `p` in percent; 0 when nothing was recorded. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let bin = 0; bin < BINS; bin++) {
      seen += this.bins[bin]!;
      if (seen >= rank) return Math.min(this.max, (bin + 1) * BIN_MS);
    }
    return this.max; // the rank falls among the overflow (>= 100 ms)
  }

  stats(): PacingStats {
    return {
      frames: this.count,
      lateP50Ms: this.percentile(50),
      lateP99Ms: this.percentile(99),
      lateMaxMs: this.max,
    };
  }
}
