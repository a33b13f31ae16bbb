/**
 * What names the occurrence a timer invocation runs for, the same on every host: the scheduled
 * instant of the next one. The host's schedule status gives it (the local host always, the
 * Functions host with its schedule monitor); without one it is computed from the schedule, and
 * only then is the cron parser loaded (a reconcile or status start-up does not load it).
 */
export async function timerOccurrence(timer: { scheduleStatus?: { next?: string } }, schedule: string, now: number): Promise<number> {
  const next = timer.scheduleStatus?.next === undefined ? NaN : Date.parse(timer.scheduleStatus.next);
  if (Number.isFinite(next)) return next;
  const { nextOccurrence } = await import('../host/schedule.js');
  return nextOccurrence(schedule, now);
}
