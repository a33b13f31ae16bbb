/** NCRONTAB schedules (six fields, seconds first), as the Functions timer trigger reads them. */
import { CronExpressionParser } from 'cron-parser';
import { errorMessage } from '../log.js';

export const DEFAULT_SCHEDULE = '0 */1 * * * *';

export function nextOccurrence(schedule: string, after: number): number {
  return CronExpressionParser.parse(schedule, { currentDate: new Date(after) }).next().getTime();
}

/**
 * The occurrence a timer invocation at `now` belongs to: the latest scheduled instant at or
 * before it. A timer woken a little early (timers round) still names the occurrence it was
 * set for: instants up to `earlyMs` ahead count as reached.
 */
export function latestOccurrence(schedule: string, now: number, earlyMs = 1_000): number {
  return CronExpressionParser.parse(schedule, { currentDate: new Date(now + earlyMs + 1) }).prev().getTime();
}

/** Throws a readable error for a schedule the host would refuse. */
export function checkSchedule(schedule: string): void {
  if (schedule.trim().split(/\s+/).length !== 6) {
    throw new Error(`invalid schedule ${JSON.stringify(schedule)}: NCRONTAB needs six fields, "{second} {minute} {hour} {day} {month} {day-of-week}"`);
  }
  try {
    nextOccurrence(schedule, Date.now());
  } catch (err) {
    throw new Error(`invalid schedule ${JSON.stringify(schedule)}: ${errorMessage(err)}`);
  }
}
