/**
 * Runs a timer function on its NCRONTAB schedule (six fields, seconds first), never
 * overlapping itself: an invocation that overruns the next occurrence makes that one late
 * (`isPastDue`), as the Functions host's singleton timer does.
 */
import type { Timer } from '@azure/functions';
import { pause } from '../clock.js';
import { errorMessage, type Log } from '../log.js';
import { logHandlerFor, newInvocationContext, type AnyInvocationContext } from './invocation.js';
import { checkSchedule, nextOccurrence } from './schedule.js';

export { DEFAULT_SCHEDULE, checkSchedule, nextOccurrence } from './schedule.js';

export type TimerHandler = (timer: Timer, context: AnyInvocationContext) => Promise<unknown>;

export async function runTimer(options: {
  functionName: string;
  schedule: string;
  handler: TimerHandler;
  log: Log;
  signal: AbortSignal;
  runOnStartup?: boolean;
}): Promise<void> {
  const { schedule, signal, log } = options;
  checkSchedule(schedule);
  let last: number | undefined;
  let due = options.runOnStartup ? Date.now() : nextOccurrence(schedule, Date.now());
  while (!signal.aborted) {
    const wait = due - Date.now();
    if (wait > 0) {
      await pause(wait, signal);
      if (signal.aborted) break;
    }
    const now = Date.now();
    const next = nextOccurrence(schedule, now);
    const timer: Timer = {
      isPastDue: now - due > 1000,
      schedule: { adjustForDST: false },
      scheduleStatus: { last: new Date(last ?? due).toISOString(), next: new Date(next).toISOString(), lastUpdated: new Date(now).toISOString() },
    };
    try {
      log.debug?.(`${options.functionName}: executing${timer.isPastDue ? ' (past due)' : ''}`);
      await options.handler(timer, newInvocationContext(options.functionName, {}, logHandlerFor(options.functionName, log)));
    } catch (err) {
      log.error(`${options.functionName} failed: ${errorMessage(err)}`);
    }
    last = now;
    // An occurrence missed while this one ran still runs, late (isPastDue), as in Azure.
    due = next;
  }
}
