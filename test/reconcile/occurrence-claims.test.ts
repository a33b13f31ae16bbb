import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { nextOccurrence } from '../../src/host/schedule.js';
import { LEASE_TTL_MS, Leases } from '../../src/state/leases.js';
import { simulatedService } from '../../src/state/service-clock.js';
import { skewedClock } from '../support/skew.js';
import { silentLog } from '../../src/log.js';
import { timerOccurrence } from '../../src/reconcile/timer-occurrence.js';
import { runPass, type PassReport } from '../../src/reconcile/pass.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { freshStorage } from '../support/storage.js';

describe('the occurrence a timer invocation runs for', () => {
  const at = Date.UTC(2026, 11, 1, 10, 5, 0);
  it('is the next occurrence the host reports', async () => {
    expect(await timerOccurrence({ scheduleStatus: { next: new Date(at + 1_000).toISOString() } }, '0 */1 * * * *', at)).toBe(at + 1_000);
  });

  it('is computed from the schedule when the host reports none', async () => {
    expect(await timerOccurrence({}, '0 */1 * * * *', at + 42_000)).toBe(at + 60_000);
    expect(await timerOccurrence({ scheduleStatus: { next: 'soon' } }, '*/5 * * * * *', at + 1_000)).toBe(at + 5_000);
  });
});

/** A timer pass's take of `key` for `occurrence`, given back at once (its claim stays on the row). */
async function claimOccurrence(leases: Leases, key: string, occurrence: number, holder: string) {
  const got = await leases.acquire(key, holder, LEASE_TTL_MS, { claim: { occurrence, by: holder } });
  if (got.acquired) {
    await leases.release(got.lease);
    return { claimed: true };
  }
  return { claimed: false, by: got.heldBy, occurrence: got.claimedFor };
}

describe('occurrence claims', () => {
  const claimsOn = async (clock: ManualClock) => new Leases(new EntityTable((await freshStorage()).table('leases')), clock, simulatedService(clock));

  it('give an object to one holder per occurrence, and to the next occurrence again', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 10, 4, 30));
    const leases = await claimsOn(clock);
    const t = Date.UTC(2026, 11, 1, 10, 5, 0);
    expect(await claimOccurrence(leases, 'pool/a', t, 'host-a')).toEqual({ claimed: true });
    expect(await claimOccurrence(leases, 'pool/a', t, 'host-b')).toEqual({ claimed: false, by: 'host-a', occurrence: t });
    expect(await claimOccurrence(leases, 'pool/a', t - 60_000, 'host-b')).toEqual({ claimed: false, by: 'host-a', occurrence: t });
    expect(await claimOccurrence(leases, 'pool/b', t, 'host-b')).toEqual({ claimed: true });
    clock.advance(60_000);
    expect(await claimOccurrence(leases, 'pool/a', t + 60_000, 'host-b')).toEqual({ claimed: true });
  });

  it('let exactly one of racing holders win', async () => {
    const leases = await claimsOn(new ManualClock());
    const at = leases.clock.now() + 30_000;
    const results = await Promise.all(['h1', 'h2', 'h3', 'h4'].map((h) => claimOccurrence(leases, 'pool/race', at, h)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
  });

  it('are placed on the service clock: a host an hour ahead claims the occurrence it is really at', async () => {
    const world = new ManualClock(Date.UTC(2026, 11, 1, 10, 4, 30));
    const storage = await freshStorage();
    const on = (clock: Clock) => new Leases(new EntityTable(storage.table('leases')), clock, simulatedService(world));
    const correct = on(world);
    const ahead = on(skewedClock(world, 3_600_000));
    const next = (clock: Clock) => nextOccurrence('0 */1 * * * *', clock.now());
    expect(await claimOccurrence(ahead, 'pool/a', next(ahead.clock), 'ahead')).toEqual({ claimed: true });
    // The same occurrence, an hour apart on the two clocks: taken.
    expect(await claimOccurrence(correct, 'pool/a', next(correct.clock), 'correct')).toMatchObject({ claimed: false, by: 'ahead' });
    world.advance(60_000);
    expect(await claimOccurrence(correct, 'pool/a', next(correct.clock), 'correct')).toEqual({ claimed: true });
  });

  it('kept by a released lease leave the lease free at once on the real service clock, and a pass without an occurrence keeps them', async () => {
    const leases = new Leases(new EntityTable((await freshStorage()).table('leases')), systemClock);
    const occurrence = Date.now() + 30_000;
    expect(await claimOccurrence(leases, 'pool/a', occurrence, 'host-a')).toEqual({ claimed: true });
    // The Date header's whole seconds make the released row's age read short: it is free all the same.
    const queued = await leases.acquire('pool/a', 'queue-pass', LEASE_TTL_MS);
    expect(queued.acquired).toBe(true);
    if (queued.acquired) await leases.release(queued.lease);
    expect(await claimOccurrence(leases, 'pool/a', occurrence, 'host-b')).toEqual({ claimed: false, by: 'host-a', occurrence });
  });

  it('placed on the real service clock (its Date header) leave the next occurrence to the correct host', async () => {
    const storage = await freshStorage();
    const ahead = new Leases(new EntityTable(storage.table('leases')), skewedClock(systemClock, 3_600_000));
    const correct = new Leases(new EntityTable(storage.table('leases')), systemClock);
    const schedule = '*/4 * * * * *';
    expect(await claimOccurrence(ahead, 'pool/a', nextOccurrence(schedule, ahead.clock.now()), 'ahead')).toEqual({ claimed: true });
    expect(await claimOccurrence(correct, 'pool/a', nextOccurrence(schedule, correct.clock.now()), 'correct')).toMatchObject({ claimed: false });
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await claimOccurrence(correct, 'pool/a', nextOccurrence(schedule, correct.clock.now()), 'correct')).toEqual({ claimed: true });
  }, 15_000);
});

describe('two hosts running the timer pass for one occurrence', () => {
  let world: ArmWorld;
  beforeAll(async () => {
    world = await armWorld();
  });
  afterAll(async () => {
    await world.sim.close();
  });

  const reconciled = (report: PassReport) => report.outcomes.filter((o) => o.status === 'done').map((o) => o.ref.name).sort();
  /** Objects a pass wrote to (it took their leases, with the occurrence's claim). */
  const wrote = (report: PassReport) => report.outcomes.filter((o) => o.status === 'done' && o.wrote).map((o) => o.ref.name).sort();

  it('write each object once between them, one after the other or at once', async () => {
    const names = ['p1', 'p2', 'p3', 'p4'];
    for (const name of names) world.sim.addScaleSet({ resourceGroup: 'rg-claims', name, capacity: 1 });
    const config = { pools: names.map((name) => ({ name, scaleSet: { resourceGroup: 'rg-claims', name }, maxCount: 1, reconcileRate: '0s,1', creationRate: '0s,1' })) };
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 10, 5, 0));
    const a = await world.runtime(config, { clock, holder: 'host-a' });
    const b = await world.runtime({ ...config, storage: { connection: a.config.storage!.connection, prefix: a.storage.prefix } }, { clock, holder: 'host-b' });
    const pass = (rt: typeof a, occurrence: number) => runPass(rt, { log: silentLog, reason: 'timer', occurrence, budgetMs: Infinity });

    const first = clock.now();
    const [one, other] = [await pass(a, first), await pass(b, first)];
    expect(reconciled(one)).toEqual(names);
    expect(reconciled(other)).toEqual([]);
    expect(other.outcomes.every((o) => o.status === 'claimed' && o.by === 'host-a' && o.occurrence === first)).toBe(true);

    clock.advance(60_000);
    const next = clock.now();
    const both = await Promise.all([pass(a, next), pass(b, next)]);
    // The second period records what the first left (a write); the host that comes second to an
    // object finds it claimed, held, or already as it is now (nothing to write, no lease).
    expect([...wrote(both[0]), ...wrote(both[1])].sort()).toEqual(names);
    expect(both.flatMap((r) => r.outcomes).every((o) => o.status === 'done' || o.status === 'claimed' || o.status === 'busy')).toBe(true);

    // Without an occurrence (a forced pass, `drover reconcile`) nothing is claimed or skipped.
    expect(reconciled(await runPass(b, { log: silentLog, reason: 'cli', budgetMs: Infinity }))).toEqual(names);
  }, 30_000);
});
