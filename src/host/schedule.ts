/** NCRONTAB schedules (six fields, seconds first), as the Functions timer trigger reads them. */
import { CronExpressionParser } from 'cron-parser';
import { errorMessage } from '../log.js';

export { DEFAULT_SCHEDULE } from './default-schedule.js';

export function nextOccurrence(schedule: string, after: number): number {
  return CronExpressionParser.parse(schedule, { currentDate: new Date(after) }).next().getTime();
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
