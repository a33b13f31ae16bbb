import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { skewedClock } from '../support/skew.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { Leases, LeaseGuard, LeaseExpiredError, withLease } from '../../src/state/leases.js';
import { freshStorage, sameStorage } from '../support/storage.js';
import { simulatedService } from '../../src/state/service-clock.js';
import type { Storage } from '../../src/state/storage.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

const leasesFor = (s: Storage, clock: ManualClock) => new Leases(new EntityTable(s.table('leases')), clock, simulatedService(clock));

describe('leases', () => {
  it('lets exactly one of two racing invocations do the work', async () => {
    const clock = new ManualClock();
    const a = leasesFor(storage, clock);
    const b = leasesFor(sameStorage(storage), clock);
    let workDone = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const work = async () => {
      workDone++;
      await gate;
      return 'done';
    };
    const racing = [
      withLease(a, clock, 'pool/race', 'instance-a', 30_000, work),
      withLease(b, clock, 'pool/race', 'instance-b', 30_000, work),
    ];
    // Let both try to acquire before the winner finishes.
    await new Promise((r) => setTimeout(r, 200));
    release();
    const results = await Promise.all(racing);
    expect(workDone).toBe(1);
    expect(results.filter((r) => r.ran)).toHaveLength(1);
    const loser = results.find((r) => !r.ran);
    expect(loser).toMatchObject({ ran: false });
  });

  it('takes over a lease held past its expiry and refuses the old holder', async () => {
    const clock = new ManualClock();
    const a = leasesFor(storage, clock);
    const b = leasesFor(sameStorage(storage), clock);
    const first = await a.acquire('pool/expiry', 'old', 10_000);
    expect(first.acquired).toBe(true);
    if (!first.acquired) return;
    const oldGuard = new LeaseGuard(a, first.lease, 10_000, clock);

    expect((await b.acquire('pool/expiry', 'new', 10_000)).acquired).toBe(false);
    clock.advance(10_001);
    const second = await b.acquire('pool/expiry', 'new', 10_000);
    expect(second.acquired).toBe(true);

    await expect(oldGuard.check()).rejects.toBeInstanceOf(LeaseExpiredError);
    // Even a holder whose clock lags (so it believes the lease is live) is fenced by the ETag.
    const laggingClock = new ManualClock(clock.now() - 5_000);
    const lagging = new LeaseGuard(leasesFor(storage, laggingClock), first.lease, 10_000, laggingClock);
    await expect(lagging.check()).rejects.toThrow(/taken it over/);
    // The old holder's release must not free the new holder's lease.
    await oldGuard.release();
    expect(await b.holderOf('pool/expiry')).toMatchObject({ holder: 'new' });
  });

  it('renews on check so long work keeps its lease', async () => {
    const clock = new ManualClock();
    const leases = leasesFor(storage, clock);
    const got = await leases.acquire('target/renew', 'me', 10_000);
    if (!got.acquired) throw new Error('expected to acquire');
    const guard = new LeaseGuard(leases, got.lease, 10_000, clock);
    for (let i = 0; i < 5; i++) {
      clock.advance(6_000);
      await guard.check();
    }
    expect(guard.current.expiresAt).toBe(clock.now() + 10_000);
    clock.advance(10_000);
    await expect(guard.check()).rejects.toBeInstanceOf(LeaseExpiredError);
  });

  it('frees the lease when the work ends, even when it fails', async () => {
    const clock = new ManualClock();
    const leases = leasesFor(storage, clock);
    await expect(withLease(leases, clock, 'pool/fail', 'me', 10_000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await leases.holderOf('pool/fail')).toBeUndefined();
  });
});

describe('leases judged on the storage service clock, whatever the hosts clocks say', () => {
  const on = (clock: Clock) => new Leases(new EntityTable(sameStorage(storage).table('leases')), clock);

  it('a holder 3 min ahead that dies blocks its object for its TTL, not for 3 min', async () => {
    const ahead = on(skewedClock(systemClock, 180_000));
    const correct = on(systemClock);
    expect((await ahead.acquire('pool/ahead', 'killed', 1_500)).acquired).toBe(true);
    const started = Date.now();
    const busy = await correct.acquire('pool/ahead', 'correct', 1_500);
    expect(busy).toMatchObject({ acquired: false, heldBy: 'killed' });
    if (!busy.acquired) expect(busy.until - Date.now()).toBeLessThanOrEqual(2_500);
    while (!(await correct.acquire('pool/ahead', 'correct', 1_500)).acquired) await new Promise((r) => setTimeout(r, 100));
    // The TTL, plus at most a second: the service's Date header has whole seconds.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a holder 60 s behind keeps its lease: the correct host cannot take it while it runs', async () => {
    const behindClock = skewedClock(systemClock, -60_000);
    const behind = on(behindClock);
    const correct = on(systemClock);
    const got = await behind.acquire('pool/behind', 'behind', 3_000);
    expect(got.acquired).toBe(true);
    if (!got.acquired) return;
    expect(await correct.acquire('pool/behind', 'correct', 3_000)).toMatchObject({ acquired: false, heldBy: 'behind' });
    expect(await correct.holderOf('pool/behind')).toMatchObject({ holder: 'behind' });
    // The holder renews on its own clock's durations, unbothered by its offset.
    const guard = new LeaseGuard(behind, got.lease, 3_000, behindClock);
    await guard.check();
    expect((await correct.acquire('pool/behind', 'correct', 3_000)).acquired).toBe(false);
    await guard.release();
    expect((await correct.acquire('pool/behind', 'correct', 3_000)).acquired).toBe(true);
  });
});
