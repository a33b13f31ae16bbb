import { describe, expect, it } from 'vitest';
import type { RandomInt, RefreshMeta } from '../../src/cache/refresh-policy.js';
import {
  drawSplayMs,
  isExpired,
  isSettling,
  lastRefreshAfterSuccess,
  lastRefreshAfterThrottle,
  nextRefreshAt,
} from '../../src/cache/refresh-policy.js';
import { NO_SLOWDOWN } from '../../src/cache/refresh-slowdown.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const S = 1_000;
const MIN = 60 * S;
const meta = (overrides: Partial<RefreshMeta> = {}): RefreshMeta => ({
  lastRefresh: NOW - S,
  periodMs: 5 * MIN,
  jitterSec: 0,
  ...overrides,
});
/** Draws these values in turn (each must be < n). */
function draws(...values: number[]): RandomInt & { calls: number[] } {
  const calls: number[] = [];
  const random = (n: number) => {
    calls.push(n);
    return values.shift() ?? 0;
  };
  return Object.assign(random, { calls });
}

describe('expiry', () => {
  it.each([
    { name: 'a cache refreshed 1 s ago with a 5 min period is fresh', m: meta(), want: false },
    { name: 'a cache refreshed period + 1 s ago is expired', m: meta({ lastRefresh: NOW - 5 * MIN - S }), want: true },
    { name: 'at the boundary (last + period == now) it is expired', m: meta({ lastRefresh: NOW - 5 * MIN }), want: true },
    { name: '1 ms before the boundary it is fresh', m: meta({ lastRefresh: NOW - 5 * MIN + 1 }), want: false },
    { name: 'never refreshed is always expired', m: meta({ lastRefresh: null }), want: true },
    { name: 'never refreshed is expired even with a huge period', m: meta({ lastRefresh: null, periodMs: Number.MAX_SAFE_INTEGER }), want: true },
    { name: 'period 0 is expired on every call, even right after a refresh', m: meta({ lastRefresh: NOW, periodMs: 0 }), want: true },
    { name: 'a last refresh pushed into the future is fresh until last + period', m: meta({ lastRefresh: NOW + MIN }), want: false },
  ])('$name', ({ m, want }) => {
    expect(isExpired(m, NOW)).toBe(want);
  });

  it('reports when the cache expires', () => {
    expect(nextRefreshAt(meta())).toBe(NOW - S + 5 * MIN);
    expect(nextRefreshAt(meta({ lastRefresh: null }))).toBeNull();
  });
});

describe('after a successful refresh', () => {
  it('without jitter, last refresh is now and the next is one period away', () => {
    const last = lastRefreshAfterSuccess(meta(), NOW, draws(0));
    expect(last).toBe(NOW);
    expect(isExpired(meta({ lastRefresh: last }), NOW + 5 * MIN - 1)).toBe(false);
    expect(isExpired(meta({ lastRefresh: last }), NOW + 5 * MIN)).toBe(true);
  });

  it('draws a whole number of seconds in [0, jitter] and subtracts it', () => {
    const random = draws(7);
    expect(lastRefreshAfterSuccess(meta({ jitterSec: 30 }), NOW, random)).toBe(NOW - 7 * S);
    expect(random.calls).toEqual([31]);
  });

  it('draws the first refresh splay over the whole period, so caches listed together first list next spread over it', () => {
    const random = draws(250, 7);
    const m = meta({ lastRefresh: null, jitterSec: 30 });
    const first = lastRefreshAfterSuccess(m, NOW, random);
    expect(first).toBe(NOW - 250 * S);
    expect(random.calls).toEqual([5 * 60 + 1]);
    // Later refreshes draw within the jitter again.
    expect(lastRefreshAfterSuccess({ ...m, lastRefresh: first }, NOW + MIN, random)).toBe(NOW + MIN - 7 * S);
    expect(random.calls).toEqual([5 * 60 + 1, 31]);
  });

  it('keeps a first refresh without jitter exactly one period before the next', () => {
    expect(lastRefreshAfterSuccess(meta({ lastRefresh: null, jitterSec: 0 }), NOW, draws(99))).toBe(NOW);
  });

  it('re-draws the splay on every refresh', () => {
    const random = draws(3, 12);
    const m = meta({ jitterSec: 30 });
    const first = lastRefreshAfterSuccess(m, NOW, random);
    const second = lastRefreshAfterSuccess({ ...m, lastRefresh: first }, NOW + 5 * MIN, random);
    expect([NOW - first, NOW + 5 * MIN - second]).toEqual([3 * S, 12 * S]);
  });

  it('keeps the next refresh within [now + period − jitter, now + period] for any draw', () => {
    const m = meta({ jitterSec: 30 });
    for (const draw of [0, 15, 30]) {
      const next = lastRefreshAfterSuccess(m, NOW, () => draw) + m.periodMs;
      expect(next).toBeGreaterThanOrEqual(NOW + 5 * MIN - 30 * S);
      expect(next).toBeLessThanOrEqual(NOW + 5 * MIN);
    }
  });

  it.each([
    { name: 'a random source answering out of range is clamped to the jitter', draw: 99, want: 30 * S },
    { name: 'a negative draw is clamped to 0', draw: -4, want: 0 },
  ])('$name', ({ draw, want }) => {
    expect(drawSplayMs(30, () => draw)).toBe(want);
  });

  it('no slowdown changes nothing, the splay included', () => {
    expect(lastRefreshAfterSuccess(meta(), NOW, draws(0), NO_SLOWDOWN)).toBe(NOW);
    expect(lastRefreshAfterSuccess(meta({ jitterSec: 30 }), NOW, draws(7), NO_SLOWDOWN)).toBe(NOW - 7 * S);
  });

  it.each([
    { name: 'a period multiplier of 2 moves the next refresh to now + 2 × period', slowdown: { periodMultiplier: 2, minDelayMs: 0, reason: 'low' }, wantNext: NOW + 10 * MIN },
    { name: 'a minimum delay longer than the period is honoured', slowdown: { periodMultiplier: 1, minDelayMs: 30 * MIN, reason: 'critical' }, wantNext: NOW + 30 * MIN },
    { name: 'a minimum delay shorter than the period changes nothing', slowdown: { periodMultiplier: 1, minDelayMs: MIN, reason: 'critical' }, wantNext: NOW + 5 * MIN },
  ])('$name', ({ slowdown, wantNext }) => {
    expect(lastRefreshAfterSuccess(meta(), NOW, draws(0), slowdown) + 5 * MIN).toBe(wantNext);
  });
});

describe('after a listing that found a VM being created', () => {
  // Without jitter the next listing is due at lastRefresh + period: with a VM settling, a minute on.
  const nextAfter = (m: RefreshMeta, slowdown?: Parameters<typeof lastRefreshAfterSuccess>[3]) => lastRefreshAfterSuccess(m, NOW, draws(0), slowdown, true) + m.periodMs;
  it.each([
    { name: 'a 5-minute cache lists again a minute on', m: meta(), slowdown: undefined, want: NOW + MIN },
    { name: 'a cache whose own period is shorter keeps it', m: meta({ periodMs: 30 * S }), slowdown: undefined, want: NOW + 30 * S },
    { name: 'ARM’s budgets fine (no slowdown) as without one', m: meta(), slowdown: NO_SLOWDOWN, want: NOW + MIN },
    { name: 'ARM asking to slow down wins: no sooner than its delay', m: meta(), slowdown: { periodMultiplier: 2, minDelayMs: 0, reason: 'low' as const }, want: NOW + 10 * MIN },
  ])('$name', ({ m, slowdown, want }) => {
    expect(nextAfter(m, slowdown)).toBe(want);
  });

  it('a first listing spread over the period still lists again within the minute', () => {
    expect(lastRefreshAfterSuccess(meta({ lastRefresh: null, jitterSec: 30 }), NOW, draws(10), undefined, true) + 5 * MIN).toBe(NOW + MIN);
    expect(lastRefreshAfterSuccess(meta({ lastRefresh: null, jitterSec: 30 }), NOW, draws(290), undefined, true) + 5 * MIN).toBe(NOW + 10 * S);
  });

  it.each([
    { name: 'a VM being created settles', instance: { state: 'Creating' as const, errorInfo: null }, want: true },
    { name: 'one that failed provisioning does not (fast delete replaces it)', instance: { state: 'Creating' as const, errorInfo: { errorClass: 'OutOfResources' as const, errorCode: 'provisioning-state-failed', errorMessage: 'failed' } }, want: false },
    { name: 'a running VM does not', instance: { state: 'Running' as const, errorInfo: null }, want: false },
    { name: 'nor one being deleted', instance: { state: 'Deleting' as const, errorInfo: null }, want: false },
  ])('$name', ({ instance, want }) => {
    expect(isSettling(instance)).toBe(want);
  });
});

describe('after a throttled refresh (429)', () => {
  it.each([
    { name: 'without Retry-After and jitter, last refresh is now', retryAfterMs: 0, jitterSec: 0, draw: 0, want: NOW },
    { name: 'without Retry-After, last refresh is now − splay', retryAfterMs: 0, jitterSec: 30, draw: 9, want: NOW - 9 * S },
    {
      name: 'Retry-After beyond the period pushes the next refresh to now + Retry-After',
      retryAfterMs: 10 * MIN,
      jitterSec: 0,
      draw: 0,
      want: NOW + 10 * MIN - 5 * MIN,
    },
    {
      name: 'Retry-After beyond the period wins over the splay',
      retryAfterMs: 10 * MIN,
      jitterSec: 30,
      draw: 20,
      want: NOW + 10 * MIN - 5 * MIN,
    },
    { name: 'Retry-After shorter than the period extends nothing', retryAfterMs: MIN, jitterSec: 0, draw: 0, want: NOW },
    { name: 'Retry-After equal to the period extends nothing', retryAfterMs: 5 * MIN, jitterSec: 0, draw: 0, want: NOW },
    { name: 'Retry-After shorter than the period keeps the splay', retryAfterMs: MIN, jitterSec: 30, draw: 4, want: NOW - 4 * S },
  ])('$name', ({ retryAfterMs, jitterSec, draw, want }) => {
    const last = lastRefreshAfterThrottle(meta({ jitterSec }), NOW, retryAfterMs, draws(draw));
    expect(last).toBe(want);
    const next = nextRefreshAt(meta({ lastRefresh: last }))!;
    expect(next).toBeGreaterThanOrEqual(NOW + retryAfterMs);
  });

  it('the refresh after a long Retry-After is expired exactly when Retry-After has passed', () => {
    const last = lastRefreshAfterThrottle(meta(), NOW, 10 * MIN, draws(0));
    expect(isExpired(meta({ lastRefresh: last }), NOW + 10 * MIN - 1)).toBe(false);
    expect(isExpired(meta({ lastRefresh: last }), NOW + 10 * MIN)).toBe(true);
  });
});
