// Cron schedules as BullMQ's job schedulers read them (cron-parser, which BullMQ uses itself):
// five fields, or six with seconds first; UTC unless a timezone is given.
import { CronExpressionParser } from 'cron-parser';
import { CronScheduleInvalidError, CronTimezoneInvalidError } from './crons.errors.js';

export interface Schedule {
  schedule: string;
  timezone: string | null;
  end_time: string | null;
}

/** Refuses (422, naming the field) a schedule or timezone that BullMQ could not follow. */
export function checkSchedule({ schedule, timezone }: Pick<Schedule, 'schedule' | 'timezone'>): void {
  if (timezone !== null) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw new CronTimezoneInvalidError(`timezone: ${JSON.stringify(timezone)} is not an IANA time zone`);
    }
  }
  const fields = schedule.trim().split(/\s+/).length;
  const problem = (why: string) => new CronScheduleInvalidError(`schedule: ${JSON.stringify(schedule)} is not a cron expression (${why})`);
  if (fields !== 5 && fields !== 6) throw problem('give 5 fields, minute hour day month weekday, or 6 with seconds first');
  try {
    CronExpressionParser.parse(schedule, timezone ? { tz: timezone } : {});
  } catch (err) {
    throw problem(err instanceof Error ? err.message : String(err));
  }
}

/** The schedule's times in (afterMs, untilMs], oldest first, at most `limit` of them (the latest ones). */
export function ticksBetween({ schedule, timezone }: Pick<Schedule, 'schedule' | 'timezone'>, afterMs: number, untilMs: number, limit: number): number[] {
  const expression = CronExpressionParser.parse(schedule, { currentDate: new Date(afterMs), tz: timezone ?? 'UTC' });
  const ticks: number[] = [];
  for (let next = expression.next().getTime(); next <= untilMs; next = expression.next().getTime()) {
    ticks.push(next);
    if (ticks.length > limit) ticks.shift();
  }
  return ticks;
}

/** The next time the schedule fires after `now`, or null when that is past `end_time`. */
export function nextRunDate({ schedule, timezone, end_time }: Schedule, now = new Date()): string | null {
  const next = CronExpressionParser.parse(schedule, { currentDate: now, tz: timezone ?? 'UTC' }).next().toDate();
  return end_time !== null && next.getTime() > Date.parse(end_time) ? null : next.toISOString();
}
