import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('clocks', () => {
  it('sleeps longer than setTimeout can count (about 24.8 days) without waking early', async () => {
    vi.useFakeTimers();
    let woke = false;
    const sleeping = systemClock.sleep(30 * 86_400_000).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(25 * 86_400_000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(5 * 86_400_000);
    await sleeping;
    expect(woke).toBe(true);
  });

  it('rejects a sleep with the abort reason', async () => {
    const ac = new AbortController();
    const sleeping = systemClock.sleep(60_000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
  });

  it('wakes manual sleepers only once time has been advanced past their deadline', async () => {
    const clock = new ManualClock(0);
    let woke = false;
    const sleeping = clock.sleep(1_000).then(() => (woke = true));
    clock.advance(999);
    await Promise.resolve();
    expect(woke).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(woke).toBe(true);
  });
});
