/**
 * The timer of a replay: the host's NCRONTAB schedule (default every minute), or a plain
 * period ("30s") on a grid from the epoch, which is the same thing for periods that divide a
 * day and quicker to compute.
 */
import { parseDuration } from '../config/duration.js';
import { DEFAULT_SCHEDULE, checkSchedule, nextOccurrence } from '../host/schedule.js';

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
  return { description: text, next: (after) => nextOccurrence(text, after) };
}

function asDuration(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}
