import type { OperationOutput } from '../../../src/operations/catalogue';
import { costWords } from './CostFields';

type RunResult = NonNullable<OperationOutput<'schedules.runs'>['runs'][number]['result']>;

/**
 * A schedule run's execution in words: its status, pass rate, errored and skipped counts, and what
 * it cost (or why that is not known).
 */
export function runResultWords(r: RunResult): string {
  return [
    r.status,
    r.pass_rate === null ? null : `${r.pass_rate}% passed`,
    r.counts.failed ? `${r.counts.failed} errored` : null,
    r.counts.skipped ? `${r.counts.skipped} skipped by the cost cap` : null,
    costWords(r),
  ]
    .filter((part) => part !== null)
    .join(' · ');
}

/** The form's "Max cost (USD)" as a schedule stores it: blank is none (null clears a cap). */
export const maxCostOf = (text: string): number | null =>
  text.trim() === '' ? null : Number(text);

/** A stored cap as the form shows it: none is blank. */
export const maxCostText = (usd: number | null): string => (usd === null ? '' : String(usd));
