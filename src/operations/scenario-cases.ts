import { z } from 'zod';
import type { ScenarioCase } from '../domain/scenarios.js';
import { validationError, type ErrorDetail } from '../errors.js';

/** At most this many data-driven cases per scenario (a suite's CSV holds one row per case). */
export const MAX_SCENARIO_CASES = 1_000;

/** A scenario's cases as sent: each case the values of some of its promptVariables. */
export const ScenarioCasesInput = z
  .array(
    z.strictObject({
      variables: z
        .record(z.string(), z.string().max(2_000))
        .describe("Values of the scenario's promptVariables; missing ones take their defaultValue"),
    }),
  )
  .max(MAX_SCENARIO_CASES)
  .nullable()
  .describe(
    'Data-driven cases: one execution per case, with its variables (at most 1,000); null: none',
  );

/** Each variable a case sets that promptVariables does not declare, at `cases[i].variables.name`. */
export function undeclaredCaseVariables(
  cases: readonly ScenarioCase[] | null,
  promptVariables: readonly { name: string }[],
): ErrorDetail[] {
  const declared = new Set(promptVariables.map((v) => v.name));
  return (cases ?? []).flatMap((c, i) =>
    Object.keys(c.variables)
      .filter((name) => !declared.has(name))
      .map((name) => ({
        path: `cases[${i}].variables.${name}`,
        message: `${name} is not a promptVariables name`,
      })),
  );
}

/** Refuses cases that set a variable the scenario does not declare, naming each (400). */
export function assertCasesDeclared(
  cases: readonly ScenarioCase[] | null,
  promptVariables: readonly { name: string }[],
): void {
  const details = undeclaredCaseVariables(cases, promptVariables);
  if (details.length)
    throw validationError(
      `Undeclared case variables: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
      details,
    );
}
