import { CronExpressionParser } from 'cron-parser';
import { NAMED_PERIODICITIES } from './periodicity.js';

/**
 * What a schedule's periodicity means in words, for the editor's preview as it is typed: the next
 * runs (the engine's own cron reading, so the preview is what will run) and, for the common
 * shapes, a plain sentence. Anything rarer gets no sentence rather than a wrong one.
 */

type CronFields = [string, string, string, string, string];

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const isNumber = (field: string): boolean => /^\d{1,2}$/.test(field);
const pad = (n: string): string => n.padStart(2, '0');
const ordinal = (n: number): string => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
};

/** A weekday field in words ("Monday", "Monday to Friday", "Monday and Thursday"), if simple. */
function weekdays(field: string): string | null {
  const day = (d: string) => DAYS[Number(d) % 7];
  const range = /^(\d)-(\d)$/.exec(field);
  if (range) return `${day(range[1]!)} to ${day(range[2]!)}`;
  const parts = field.split(',');
  if (!parts.every((p) => /^\d$/.test(p) && Number(p) <= 7)) return null;
  const names = parts.map(day);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Descriptions of the shapes where minute and hour are fixed ("at 09:30"). */
function atTime([min, hour, dom, month, dow]: CronFields) {
  const at = `at ${pad(hour)}:${pad(min)}`;
  if (month !== '*') return null;
  if (dom === '*' && dow === '*') return `every day ${at}`;
  if (dom === '*') {
    const days = weekdays(dow);
    return days ? `every ${days} ${at}` : null;
  }
  if (isNumber(dom) && dow === '*') return `on the ${ordinal(Number(dom))} of every month ${at}`;
  return null;
}

/** A plain description of a five-field cron expression, or null for shapes it does not cover. */
export function describeCron(cron: string): string | null {
  const fields = cron.split(' ') as CronFields;
  const [min, hour, dom, month, dow] = fields;
  if (isNumber(min) && isNumber(hour)) return atTime(fields);
  if ([dom, month, dow].some((f) => f !== '*')) return null;
  const everyMinutes = /^\*\/(\d+)$/.exec(min);
  if (hour === '*') {
    if (min === '*') return 'every minute';
    if (everyMinutes) return `every ${everyMinutes[1]} minutes`;
    if (isNumber(min)) return `every hour at minute ${Number(min)}`;
    return null;
  }
  const everyHours = /^\*\/(\d+)$/.exec(hour);
  if (everyHours && isNumber(min)) return `every ${everyHours[1]} hours at minute ${Number(min)}`;
  return null;
}

/** The description of a periodicity as sent: a named one, or its cron expression's. */
export function describePeriodicity(periodicity: string, cron: string): string | null {
  return periodicity in NAMED_PERIODICITIES
    ? describeCron(NAMED_PERIODICITIES[periodicity]!)
    : describeCron(cron);
}

/** The next `count` slots strictly after `from`, in the schedule's time zone, as ISO UTC strings. */
export function nextSlots(cron: string, timezone: string, from: Date, count: number): string[] {
  const slots = CronExpressionParser.parse(cron, { currentDate: from, tz: timezone });
  return Array.from({ length: count }, () => slots.next().toISOString()!);
}
