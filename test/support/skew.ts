import type { Clock } from '../../src/clock.js';

/** `clock` read `offsetMs` off, as on a host whose clock is wrong; waits are unchanged (they are durations). */
export function skewedClock(clock: Clock, offsetMs: number): Clock {
  return { now: () => clock.now() + offsetMs, sleep: (ms, signal) => clock.sleep(ms, signal) };
}
