import { CronExpressionParser } from 'cron-parser';

/** The named periodicities and the cron slot each stands for (Monday for weekly, the 1st for monthly). */
export const NAMED_PERIODICITIES: Record<string, string> = {
  hourly: '0 * * * *',
  daily: '0 0 * * *',
  weekly: '0 0 * * 1',
  monthly: '0 0 1 * *',
};

export type EndCondition =
  { kind: 'never' } | { kind: 'after'; runs: number } | { kind: 'until'; at: Date };

/**
 * The cron expression for a periodicity, or an error message a person can act on. A stored one is
 * read as it was accepted (`strictSteps: false`): a schedule saved before steps were checked goes
 * on running as it always did, and the rule applies to what is sent from now on.
 */
export function cronFor(
  periodicity: string,
  { strictSteps = true }: { strictSteps?: boolean } = {},
): { cron: string } | { error: string } {
  const named = NAMED_PERIODICITIES[periodicity];
  if (named) return { cron: named };
  const fields = periodicity.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      error: `must be hourly, daily, weekly, monthly, or a five-field cron expression (minute hour day month weekday); got ${fields.length} field(s)`,
    };
  }
  try {
    CronExpressionParser.parse(periodicity);
  } catch (err) {
    return { error: `is not a valid cron expression: ${(err as Error).message}` };
  }
  const wide = strictSteps
    ? fields.map((field, i) => wideStep(field, CRON_FIELDS[i]!)).find(Boolean)
    : undefined;
  return wide ? { error: `is not a valid cron expression: ${wide}` } : { cron: fields.join(' ') };
}

/** Each field of a cron expression: its name in messages and the values it can take. */
const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  // 7 is Sunday again: a step over the week counts its seven days, 0-6.
  { name: 'weekday', min: 0, max: 6 },
];

/**
 * Why a step of this field is wider than the values it steps over, if one is: cron-parser runs
 * every 61st minute as minute 0 (hourly), where the tester asked for something else. A step must
 * reach a second value.
 */
function wideStep(field: string, range: { name: string; min: number; max: number }) {
  for (const part of field.split(',')) {
    const [base, stepText] = part.split('/');
    if (stepText === undefined) continue;
    const [from, to] =
      base === '*'
        ? [range.min, range.max]
        : base!.includes('-')
          ? base!.split('-').map(Number)
          : [Number(base), range.max];
    const step = Number(stepText);
    if (Number.isInteger(from) && Number.isInteger(to) && step > to! - from!)
      return `the ${range.name} step ${step} is wider than ${from}-${to}`;
  }
  return undefined;
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The first slot strictly after `from`, in the schedule's time zone, as an ISO UTC string. */
export function nextSlot(cron: string, timezone: string, from: Date): string {
  return CronExpressionParser.parse(cron, { currentDate: from, tz: timezone })
    .next()
    .toISOString()!;
}

export function parseEndCondition(text: string): EndCondition | { error: string } {
  if (text === 'never') return { kind: 'never' };
  const after = /^after:(\d{1,6})$/.exec(text);
  if (after) {
    const runs = Number(after[1]);
    return runs >= 1 ? { kind: 'after', runs } : { error: 'after:<N> needs N of at least 1' };
  }
  const until = /^until:(.+)$/.exec(text);
  if (until) {
    const at = new Date(until[1]!);
    if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(until[1]!)) {
      return {
        error:
          'until:<date> needs an ISO 8601 date such as until:2026-12-31 or until:2026-12-31T18:00:00Z',
      };
    }
    return { kind: 'until', at };
  }
  return { error: 'must be never, after:<N> (number of scheduled runs) or until:<ISO date>' };
}
