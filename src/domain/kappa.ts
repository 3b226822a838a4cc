/**
 * Cohen's kappa: how far two raters agree beyond what their own rates of each answer would give by
 * chance. `table[i][j]` counts the items rater A put in category i and rater B in category j (a
 * square table, any number of categories). Pure, so it is tested on textbook tables.
 */

export interface Agreement {
  /** Items rated by both. */
  n: number;
  /** The share of items both put in the same category (p_o), or null without items. */
  observed: number | null;
  /** The agreement expected by chance from each rater's marginal rates (p_e), or null. */
  expected: number | null;
  /** (p_o - p_e) / (1 - p_e); null when undefined: no items, or chance agreement is already 1. */
  kappa: number | null;
}

function checkSquare(table: readonly (readonly number[])[]): void {
  for (const row of table) {
    if (row.length !== table.length) throw new Error('a kappa table must be square');
    for (const cell of row)
      if (!Number.isFinite(cell) || cell < 0)
        throw new Error('kappa counts must be finite and ≥ 0');
  }
}

/** Cohen's kappa and its parts for a square table of counts. */
export function cohensKappa(table: readonly (readonly number[])[]): Agreement {
  checkSquare(table);
  const k = table.length;
  let n = 0;
  let diagonal = 0;
  const rows = new Array<number>(k).fill(0);
  const columns = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const cell = table[i]![j]!;
      n += cell;
      rows[i]! += cell;
      columns[j]! += cell;
      if (i === j) diagonal += cell;
    }
  }
  if (n === 0) return { n, observed: null, expected: null, kappa: null };
  const observed = diagonal / n;
  let expected = 0;
  for (let i = 0; i < k; i++) expected += (rows[i]! / n) * (columns[i]! / n);
  // Both raters gave one and the same answer to everything: chance explains it all, kappa is 0/0.
  const undefinedKappa = Math.abs(1 - expected) < 1e-12;
  return {
    n,
    observed,
    expected,
    kappa: undefinedKappa ? null : (observed - expected) / (1 - expected),
  };
}

/** The judge against people on pass/fail: the four cells of their 2×2 table. */
export interface PassFailConfusion {
  both_pass: number;
  judge_pass_human_fail: number;
  judge_fail_human_pass: number;
  both_fail: number;
}

/** Kappa of a pass/fail confusion (rows: the judge; columns: the human). */
export const passFailKappa = (c: PassFailConfusion): Agreement =>
  cohensKappa([
    [c.both_pass, c.judge_pass_human_fail],
    [c.judge_fail_human_pass, c.both_fail],
  ]);
