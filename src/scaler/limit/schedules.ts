/**
 * Scheduled floors and ceilings: a window opens at each occurrence of its cron expression (in
 * its time zone, so 09:00 Europe/Berlin stays 09:00 across a DST change) and stays open for its
 * duration. While windows are open the lower bound is the highest of their floors and the upper
 * bound the lowest of their ceilings; as minScale does over maxScale, a floor wins over a ceiling
 * below it.
 */
import { CronExpressionParser } from 'cron-parser';

export interface Schedule {
  cron: string;
  durationMs: number;
  timezone: string;
  minScale?: number;
  maxScale?: number;
}

export interface ScheduledBounds {
  minScale: number;
  /** Infinity when unbounded. */
  maxScale: number;
  /** Set when an open window changed the bound. */
  floorFrom?: Schedule;
  ceilingFrom?: Schedule;
}

/** The latest occurrence at or before `now` has opened a window still open at `now`. */
export function isOpen(schedule: Schedule, now: number): boolean {
  const last = CronExpressionParser.parse(schedule.cron, { currentDate: new Date(now + 1), tz: schedule.timezone }).prev().getTime();
  return last <= now && now < last + schedule.durationMs;
}

export function scheduledBounds(minScale: number, maxScale: number, schedules: readonly Schedule[], now: number): ScheduledBounds {
  let out: ScheduledBounds = { minScale, maxScale };
  for (const schedule of schedules) {
    if (!isOpen(schedule, now)) continue;
    if (schedule.minScale !== undefined && schedule.minScale > out.minScale) out = { ...out, minScale: schedule.minScale, floorFrom: schedule };
    if (schedule.maxScale !== undefined && schedule.maxScale < out.maxScale) out = { ...out, maxScale: schedule.maxScale, ceilingFrom: schedule };
  }
  return out.minScale > out.maxScale ? { ...out, maxScale: out.minScale } : out;
}

/** Throws a readable error for an expression or time zone cron-parser refuses. */
export function checkSchedule(cron: string, timezone: string): void {
  CronExpressionParser.parse(cron, { tz: timezone }).next();
}
