import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { InProcessTokenBucket, isLimiterBurstError } from './support/token-bucket.js';
import { settle, track } from './support/promises.js';

const never = () => new AbortController().signal;

/** Starts a wait and reports its state after pending callbacks ran. */
async function startWait(bucket: InProcessTokenBucket, signal = never()) {
  const wait = track(bucket.wait(signal));
  await settle();
  return wait;
}

async function advance(clock: ManualClock, ms: number) {
  clock.advance(ms);
  await settle();
}

describe('InProcessTokenBucket', () => {
  it('"5s,1" grants one token at once, then one per 5 s', async () => {
    const clock = new ManualClock();
    const bucket = new InProcessTokenBucket({ intervalMs: 5_000, burst: 1 }, clock);

    expect((await startWait(bucket)).state).toBe('resolved');
    const second = await startWait(bucket);
    expect(second.state).toBe('pending');
    await advance(clock, 4_999);
    expect(second.state).toBe('pending');
    await advance(clock, 1);
    expect(second.state).toBe('resolved');
  });

  it('a full bucket of 3 grants three at once and the fourth after one interval', async () => {
    const clock = new ManualClock();
    const bucket = new InProcessTokenBucket({ intervalMs: 10_000, burst: 3 }, clock);
    const waits = [await startWait(bucket), await startWait(bucket), await startWait(bucket), await startWait(bucket)];
    expect(waits.map((w) => w.state)).toEqual(['resolved', 'resolved', 'resolved', 'pending']);
    await advance(clock, 10_000);
    expect(waits[3]?.state).toBe('resolved');
  });

  it('waiters are served in order, one interval apart', async () => {
    const clock = new ManualClock();
    const bucket = new InProcessTokenBucket({ intervalMs: 1_000, burst: 1 }, clock);
    await startWait(bucket);
    const [b, c] = [await startWait(bucket), await startWait(bucket)];
    await advance(clock, 1_000);
    expect([b.state, c.state]).toEqual(['resolved', 'pending']);
    await advance(clock, 1_000);
    expect(c.state).toBe('resolved');
  });

  it('refills fractionally between waits', async () => {
    const clock = new ManualClock();
    const bucket = new InProcessTokenBucket({ intervalMs: 10_000, burst: 1 }, clock);
    await startWait(bucket);
    await advance(clock, 6_000);
    const next = await startWait(bucket);
    await advance(clock, 3_999);
    expect(next.state).toBe('pending');
    await advance(clock, 1);
    expect(next.state).toBe('resolved');
  });

  it('never holds more than its burst, however long it sat idle', async () => {
    const clock = new ManualClock();
    const bucket = new InProcessTokenBucket({ intervalMs: 1_000, burst: 2 }, clock);
    await advance(clock, 3_600_000);
    const waits = [await startWait(bucket), await startWait(bucket), await startWait(bucket)];
    expect(waits.map((w) => w.state)).toEqual(['resolved', 'resolved', 'pending']);
  });

  it('a burst of 0 with a finite rate refuses every wait at once', async () => {
    const bucket = new InProcessTokenBucket({ intervalMs: 60_000, burst: 0 }, new ManualClock());
    const wait = await startWait(bucket);
    expect(wait.state).toBe('rejected');
    expect(isLimiterBurstError(wait.error)).toBe(true);
    expect(wait.error).toMatchObject({ message: "rate: Wait(n=1) exceeds limiter's burst 0" });
  });

  it('an infinite rate never waits, even with a burst of 0', async () => {
    const bucket = new InProcessTokenBucket({ intervalMs: 0, burst: 0 }, new ManualClock());
    const waits = [await startWait(bucket), await startWait(bucket), await startWait(bucket)];
    expect(waits.map((w) => w.state)).toEqual(['resolved', 'resolved', 'resolved']);
  });

  it('an already aborted signal is refused with its reason and takes no token', async () => {
    const bucket = new InProcessTokenBucket({ intervalMs: 5_000, burst: 1 }, new ManualClock());
    const reason = new Error('invocation cancelled');
    const controller = new AbortController();
    controller.abort(reason);
    const aborted = await startWait(bucket, controller.signal);
    expect(aborted).toMatchObject({ state: 'rejected', error: reason });
    expect((await startWait(bucket)).state).toBe('resolved');
  });

  it('an abort while waiting rejects with its reason and gives the token back', async () => {
    const clock = new ManualClock();
    const bucket = new InProcessTokenBucket({ intervalMs: 5_000, burst: 1 }, clock);
    await startWait(bucket);
    const controller = new AbortController();
    const waiting = await startWait(bucket, controller.signal);
    await advance(clock, 1_000);
    const reason = new Error('invocation cancelled');
    controller.abort(reason);
    await settle();
    expect(waiting).toMatchObject({ state: 'rejected', error: reason });

    // The cancelled token is due again at 5 s, not at 10 s.
    const next = await startWait(bucket);
    await advance(clock, 3_999);
    expect(next.state).toBe('pending');
    await advance(clock, 1);
    expect(next.state).toBe('resolved');
  });
});
