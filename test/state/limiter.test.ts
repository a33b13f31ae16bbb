import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { parseRate } from '../../src/config/rate.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { SharedLimiter, refill, waitFor } from '../../src/state/limiter.js';
import { RateLimitedError } from '../../src/errors/rate-limited.js';
import { freshStorage, sameStorage } from '../support/storage.js';
import type { Storage } from '../../src/state/storage.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

const limiter = (s: Storage, clock: ManualClock, name: string, rate: string) =>
  new SharedLimiter(new EntityTable(s.table('limiters')), clock, name, parseRate(rate));

describe('bucket arithmetic', () => {
  const rate = parseRate('5s,2');
  it.each([
    { name: 'a new bucket starts full', bucket: undefined, now: 0, tokens: 2 },
    { name: 'refills one token per interval', bucket: { tokens: 0, updatedAt: 0 }, now: 5_000, tokens: 1 },
    { name: 'refills fractions', bucket: { tokens: 0, updatedAt: 0 }, now: 2_500, tokens: 0.5 },
    { name: 'never beyond the burst', bucket: { tokens: 1, updatedAt: 0 }, now: 60_000, tokens: 2 },
    { name: 'pays back a debt first', bucket: { tokens: -1, updatedAt: 0 }, now: 5_000, tokens: 0 },
  ])('$name', ({ bucket, now, tokens }) => {
    expect(refill(bucket, rate, now).tokens).toBeCloseTo(tokens);
  });

  it('refills a bucket stamped an hour ahead (by a host whose clock is) from the reader\'s now on, not an hour later', () => {
    const HOUR = 3_600_000;
    const seen = refill({ tokens: 0, updatedAt: HOUR }, rate, 0);
    expect(seen).toEqual({ tokens: 0, updatedAt: 0 });
    expect(refill(seen, rate, 5_000).tokens).toBeCloseTo(1);
  });

  it('waits for the missing fraction of a token', () => {
    expect(waitFor({ tokens: 0.5, updatedAt: 0 }, rate)).toBe(2_500);
    expect(waitFor({ tokens: 1, updatedAt: 0 }, rate)).toBe(0);
  });
});

describe('SharedLimiter', () => {
  it('grants 5s,1 one token per 5 s between two clients, not per client', async () => {
    const clock = new ManualClock();
    const a = limiter(storage, clock, 'shared', '5s,1');
    const b = limiter(sameStorage(storage), clock, 'shared', '5s,1');
    const grants: number[] = [];
    const take = async (l: SharedLimiter) => {
      const r = await l.reserve(0);
      if (r.ok) grants.push(clock.now());
      return r;
    };
    // Over 20 s, both clients ask every second, at the same moment.
    for (let t = 0; t < 20; t++) {
      await Promise.all([take(a), take(b)]);
      clock.advance(1_000);
    }
    expect(grants).toEqual([0, 5_000, 10_000, 15_000].map((d) => d + clock.now() - 20_000));
  });

  it('makes a second waiter wait a full interval behind the first', async () => {
    const clock = new ManualClock();
    const a = limiter(storage, clock, 'queue', '5s,1');
    const b = limiter(sameStorage(storage), clock, 'queue', '5s,1');
    expect(await a.reserve()).toEqual({ ok: true, waitMs: 0 });
    expect(await b.reserve()).toEqual({ ok: true, waitMs: 5_000 });
    expect(await a.reserve()).toEqual({ ok: true, waitMs: 10_000 });
  });

  it('refuses at once when the token is further away than the caller may wait', async () => {
    const clock = new ManualClock();
    const l = limiter(storage, clock, 'bounded', '1m,1');
    await l.wait(undefined, 0);
    const err = await l.wait(undefined, 10_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ source: 'limiter', subject: 'bounded', retryAfterMs: 60_000 });
  });

  it('hands the token back when the wait is aborted', async () => {
    const clock = new ManualClock();
    const l = limiter(storage, clock, 'abort', '10s,1');
    await l.wait();
    const ac = new AbortController();
    const waiting = l.wait(ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort(new Error('pass cancelled'));
    await expect(waiting).rejects.toThrow('pass cancelled');
    // The aborted reservation was returned: the next caller waits one interval, not two.
    expect(await l.reserve()).toEqual({ ok: true, waitMs: 10_000 });
  });

  it('never waits with an infinite rate and always refuses a burst of 0', async () => {
    const clock = new ManualClock();
    expect(await limiter(storage, clock, 'inf', '0s,1').reserve()).toEqual({ ok: true, waitMs: 0 });
    await expect(limiter(storage, clock, 'zero', '1m,0').wait()).rejects.toThrow(/burst of 0/);
  });
});

describe('SharedLimiter.draw', () => {
  it('takes as many of N tokens as are due within the bounded wait, in one draw, then waits for the last', async () => {
    const clock = new ManualClock();
    const bucket = limiter(storage, clock, 'draw-many', '5s,2');
    // Two in the bucket, and two more due within 10 s: four of six.
    const drawn = bucket.draw(6, undefined, 10_000);
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(10_000);
    expect(await drawn).toBe(4);
    // The bucket is spent: a draw that may not wait gets nothing and takes nothing.
    expect(await bucket.draw(3, undefined, 0)).toBe(0);
    clock.advance(5_000);
    expect(await bucket.draw(3, undefined, 0)).toBe(1);
  });

  it('gives every token at once with an infinite rate, without touching the table', async () => {
    const bucket = limiter(storage, new ManualClock(), 'draw-free', '0s,1');
    expect(await bucket.draw(1000, undefined, 0)).toBe(1000);
    expect(await new EntityTable(storage.table('limiters')).get('limiter', 'draw-free')).toBeUndefined();
  });

  it('hands the tokens back when the wait is aborted', async () => {
    const clock = new ManualClock();
    const bucket = limiter(storage, clock, 'draw-abort', '5s,1');
    const controller = new AbortController();
    const drawn = bucket.draw(3, controller.signal, 10_000);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('cancelled'));
    await expect(drawn).rejects.toThrow('cancelled');

    expect(await bucket.draw(1, undefined, 0)).toBe(1);
  });
});
