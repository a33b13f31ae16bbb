/**
 * The timer of a replay: the host's NCRONTAB schedule (default every minute), or a plain
 * period ("30s") on a grid from the epoch, which is the same thing for periods that divide a
 * day and quicker to compute.
 */
import { parseDuration } from '../config/duration.js';
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { DEFAULT_SCHEDULE, checkSchedule } from '../host/schedule.js';

export interface ReplaySchedule {
  readonly description: string;
  /** The first occurrence strictly after `after`. */
  next(after: number): number;
  /**
   * How many times it fires from `from` to `to`: exact for a period; for NCRONTAB the fires of
   * each day it matches, whole days counted, so a little high at the ends (a bound on work).
   */
  count(from: number, to: number): number;
}

export const DEFAULT_REPLAY_SCHEDULE = DEFAULT_SCHEDULE;

/** Throws a readable error for a schedule that is neither a duration > 0 nor NCRONTAB. */
export function parseReplaySchedule(text: string): ReplaySchedule {
  const period = asDuration(text);
  if (period !== undefined) {
    if (period <= 0) throw new Error(`schedule ${JSON.stringify(text)}: expected a period > 0`);
    return {
      description: `every ${text}`,
      next: (after) => (Math.floor(after / period) + 1) * period,
      count: (from, to) => Math.max(0, Math.floor(to / period) - Math.ceil(from / period) + 1),
    };
  }
  checkSchedule(text);
  return cronSchedule(text);
}

/**
 * Parsing NCRONTAB is the costly part, and a replay asks for occurrence after occurrence: one
 * parsed expression is stepped on while each question starts at the previous answer.
 */
function cronSchedule(text: string): ReplaySchedule {
  let iterator: CronExpression | undefined;
  let last: number | undefined;
  const days = cronDays(text);
  return {
    description: text,
    next(after) {
      if (iterator === undefined || last !== after) iterator = CronExpressionParser.parse(text, { currentDate: new Date(after) });
      last = iterator.next().getTime();
      return last;
    },
    count: (from, to) => days.count(from, to),
  };
}

const DAY_MS = 86_400_000;

/**
 * A cron's fires by day: on a day it matches at all it fires at every second × minute × hour
 * it names (the day, month and weekday fields only choose days). The days matched from the
 * first `from` asked are kept as running totals, so a replay may ask after every row.
 */
function cronDays(text: string): { count(from: number, to: number): number } {
  const { second, minute, hour } = CronExpressionParser.parse(text).fields;
  const perDay = second.values.length * minute.values.length * hour.values.length;
  const matches = (day: number) => CronExpressionParser.parse(text, { currentDate: new Date(day * DAY_MS - 1) }).next().getTime() < (day + 1) * DAY_MS;
  let base: number | undefined;
  /** totals[i]: the days matched from `base` to `base + i`. */
  let totals: number[] = [];
  return {
    count(from, to) {
      const first = Math.floor(from / DAY_MS);
      const lastDay = Math.floor(to / DAY_MS);
      if (lastDay < first) return 0;
      if (base !== first) [base, totals] = [first, []];
      while (totals.length <= lastDay - first) totals.push((totals.at(-1) ?? 0) + (matches(first + totals.length) ? 1 : 0));
      return perDay * totals[lastDay - first]!;
    },
  };
}

function asDuration(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}
