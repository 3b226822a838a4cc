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

/** The cron expression for a periodicity, or an error message a person can act on. */
export function cronFor(periodicity: string): { cron: string } | { error: string } {
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
    return { cron: fields.join(' ') };
  } catch (err) {
    return { error: `is not a valid cron expression: ${(err as Error).message}` };
  }
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
