/**
 * When a scale set's instance cache is refreshed again. All times are epoch milliseconds.
 *
 * A cache is fresh while `lastRefresh + period > now` (strictly: at the boundary it is expired;
 * `lastRefresh: null` is "never" and always expired). After a refresh, `lastRefresh` is set a
 * random whole number of seconds (the splay, 0…jitter, drawn again on every refresh) before
 * `now`, so that scale sets refreshed together drift apart. The first refresh of a cache with a
 * jitter draws its splay over the whole period instead: a fleet taken over in one pass lists
 * next spread over one period, not all in the pass one period later (a jitter of 0 keeps every
 * refresh exactly one period apart). Pushing the next refresh later
 * (Retry-After, or running low on ARM's budget) is done by moving `lastRefresh` forward, which
 * may put it in the future: `lastRefresh + period` is then the first moment worth asking again.
 * A listing that found a VM still being created brings the next one forward to within
 * SETTLING_PERIOD_MS (unless ARM asked to slow down): the pool sees the VM running, and a Pool
 * target its start-up delay, within a minute of it rather than a whole period later.
 */
import type { CachedInstance } from './instance.js';
import type { Slowdown } from './refresh-slowdown.js';

export interface RefreshMeta {
  /** `null`: never refreshed. */
  lastRefresh: number | null;
  periodMs: number;
  jitterSec: number;
}

/** An integer in [0, n), like Go's `rand.Intn`. Injected so tests can fix the draw. */
export type RandomInt = (n: number) => number;

export const mathRandomInt: RandomInt = (n) => Math.floor(Math.random() * n);

export function isExpired(meta: RefreshMeta, now: number): boolean {
  return meta.lastRefresh === null || !(meta.lastRefresh + meta.periodMs > now);
}

/** When the cache expires; `null` when it already has (never refreshed). */
export function nextRefreshAt(meta: RefreshMeta): number | null {
  return meta.lastRefresh === null ? null : meta.lastRefresh + meta.periodMs;
}

/** How soon a listing that found a VM being created is followed by the next. */
export const SETTLING_PERIOD_MS = 60_000;

/** The period until the next listing while a VM is being created: SETTLING_PERIOD_MS, or the cache's own when shorter. */
const settlingPeriodMs = (periodMs: number) => Math.min(SETTLING_PERIOD_MS, periodMs);

/** A VM on its way to running: being created, with no error that says it never will (fast delete replaces those). */
export const isSettling = (instance: Pick<CachedInstance, 'state' | 'errorInfo'>) => instance.state === 'Creating' && instance.errorInfo === null;

export function drawSplayMs(jitterSec: number, randomInt: RandomInt): number {
  const jitter = Math.max(0, Math.floor(jitterSec));
  const seconds = Math.min(jitter, Math.max(0, Math.floor(randomInt(jitter + 1))));
  return seconds * 1000;
}

/**
 * `lastRefresh` after a successful listing. A slowdown (from the rate-limit headers) pushes the
 * next refresh to no sooner than `max(period × multiplier, minDelay)` from now.
 */
export function lastRefreshAfterSuccess(
  meta: RefreshMeta,
  now: number,
  randomInt: RandomInt,
  slowdown?: Slowdown,
  settling = false,
): number {
  const firstSpread = meta.lastRefresh === null && meta.jitterSec > 0;
  const splayed = now - drawSplayMs(firstSpread ? Math.floor(meta.periodMs / 1000) : meta.jitterSec, randomInt);
  // No slowdown (ARM's budgets are fine) keeps the splay: "no sooner than one period" would undo it.
  if (!slowdown || slowdown.reason === null) return settling ? Math.min(splayed, now + settlingPeriodMs(meta.periodMs) - meta.periodMs) : splayed;
  const delay = Math.max(meta.periodMs * slowdown.periodMultiplier, slowdown.minDelayMs);
  return deferred(splayed, meta.periodMs, now, delay);
}

/**
 * `lastRefresh` after ARM answered 429: the cached instances stay as they are and no error
 * surfaces; the next refresh comes no sooner than Retry-After (0 = none given: just the period).
 */
export function lastRefreshAfterThrottle(
  meta: RefreshMeta,
  now: number,
  retryAfterMs: number,
  randomInt: RandomInt,
): number {
  const splayed = now - drawSplayMs(meta.jitterSec, randomInt);
  return deferred(splayed, meta.periodMs, now, retryAfterMs);
}

function deferred(lastRefresh: number, periodMs: number, now: number, delayMs: number): number {
  if (delayMs <= 0) return lastRefresh;
  const next = lastRefresh + periodMs;
  const earliest = now + delayMs;
  return next < earliest ? lastRefresh + (earliest - next) : lastRefresh;
}
