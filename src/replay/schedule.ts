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
}

export const DEFAULT_REPLAY_SCHEDULE = DEFAULT_SCHEDULE;

/** Throws a readable error for a schedule that is neither a duration > 0 nor NCRONTAB. */
export function parseReplaySchedule(text: string): ReplaySchedule {
  const period = asDuration(text);
  if (period !== undefined) {
    if (period <= 0) throw new Error(`schedule ${JSON.stringify(text)}: expected a period > 0`);
    return { description: `every ${text}`, next: (after) => (Math.floor(after / period) + 1) * period };
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
  return {
    description: text,
    next(after) {
      if (iterator === undefined || last !== after) iterator = CronExpressionParser.parse(text, { currentDate: new Date(after) });
      last = iterator.next().getTime();
      return last;
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
