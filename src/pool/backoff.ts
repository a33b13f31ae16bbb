/**
 * How long a pool stops bringing up new capacity after Azure failed to provision its VMs: 5 min,
 * doubling with each further failure up to 30 min; a pool that saw no failure for 3 h starts
 * again from 5 min. Pure: the state is persisted by the caller.
 */
export const BACKOFF_BASE_MS = 5 * 60_000;
export const BACKOFF_MAX_MS = 30 * 60_000;
export const BACKOFF_RESET_MS = 3 * 3_600_000;

export interface BackoffState {
  /** Consecutive failures counted since the last reset. */
  failures: number;
  lastFailureAt: number;
  /** No new capacity before this time (epoch ms). */
  until: number;
}

export function backoffAfterFailure(previous: BackoffState | undefined, now: number): BackoffState {
  const failures = previous && now - previous.lastFailureAt < BACKOFF_RESET_MS ? previous.failures + 1 : 1;
  const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (failures - 1));
  return { failures, lastFailureAt: now, until: now + delay };
}

export function isBackingOff(state: BackoffState | undefined, now: number): boolean {
  return state !== undefined && now < state.until;
}
