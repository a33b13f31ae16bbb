/**
 * A host whose clock is far off storage's says so once. Nothing that decides who acts depends on
 * it (leases, occurrence claims and pending markers are judged on the storage service's clock,
 * docs/architecture.md "Time across hosts"), but its own times in logs, status and the decision
 * log are off by as much, and an operator should fix its clock. Each timed read of a shared row
 * (`ServiceClock.times`) compares the service's `now` with this host's: more than
 * CLOCK_SKEW_WARN_MS apart (beyond the Date header's whole second) leaves one warning naming the
 * skew; once the clock is back within it, a later skew is said again.
 */
import type { Clock } from '../clock.js';
import type { ServiceClock } from './service-clock.js';

export const CLOCK_SKEW_WARN_MS = 30_000;
/** The Date header has whole seconds: a reading may be up to this much off by itself. */
const DATE_HEADER_SLACK_MS = 1_000;

/** `inner` as it was, telling `onSkew` (once per episode) when this host's clock is far off the service's. */
export function skewWatchedService(inner: ServiceClock, clock: Pick<Clock, 'now'>, onSkew: (line: string) => void, thresholdMs = CLOCK_SKEW_WARN_MS): ServiceClock {
  let said = false;
  return {
    stamp: () => inner.stamp(),
    times(read) {
      const times = inner.times(read);
      const skew = clock.now() - times.now;
      const off = Math.abs(skew) > thresholdMs + DATE_HEADER_SLACK_MS;
      if (off && !said) onSkew(skewLine(skew));
      said = off;
      return times;
    },
  };
}

export function skewLine(skewMs: number): string {
  const way = skewMs > 0 ? 'ahead of' : 'behind';
  return `clock: this host's clock is ${formatSkew(Math.abs(skewMs))} ${way} storage's; leases, timer claims and pushes are judged on storage's clock, so no other host is held up, but fix this host's clock (NTP): its times in the log and status are off by as much`;
}

function formatSkew(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min` : `${(m / 60).toFixed(1)} h`;
}
