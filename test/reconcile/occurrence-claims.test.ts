import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { claimOccurrence, timerOccurrence } from '../../src/reconcile/occurrence-claims.js';
import { runPass, type PassReport } from '../../src/reconcile/pass.js';
import { EntityTable } from '../../src/state/entity-table.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { freshStorage } from '../support/storage.js';

describe('the occurrence a timer invocation runs for', () => {
  const at = Date.UTC(2026, 11, 1, 10, 5, 0);
  it('is the next occurrence the host reports', () => {
    expect(timerOccurrence({ scheduleStatus: { next: new Date(at + 1_000).toISOString() } }, '0 */1 * * * *', at)).toBe(at + 1_000);
  });

  it('is computed from the schedule when the host reports none', () => {
    expect(timerOccurrence({}, '0 */1 * * * *', at + 42_000)).toBe(at + 60_000);
    expect(timerOccurrence({ scheduleStatus: { next: 'soon' } }, '*/5 * * * * *', at + 1_000)).toBe(at + 5_000);
  });
});

describe('occurrence claims', () => {
  it('give an object to one holder per occurrence, and to the next occurrence again', async () => {
    const table = new EntityTable((await freshStorage()).table('leases'));
    const t = Date.UTC(2026, 11, 1, 10, 5, 0);
    expect(await claimOccurrence(table, 'pool/a', t, 'host-a')).toEqual({ claimed: true });
    expect(await claimOccurrence(table, 'pool/a', t, 'host-b')).toEqual({ claimed: false, by: 'host-a', occurrence: t });
    expect(await claimOccurrence(table, 'pool/a', t - 60_000, 'host-b')).toEqual({ claimed: false, by: 'host-a', occurrence: t });
    expect(await claimOccurrence(table, 'pool/b', t, 'host-b')).toEqual({ claimed: true });
    expect(await claimOccurrence(table, 'pool/a', t + 60_000, 'host-b')).toEqual({ claimed: true });
  });

  it('let exactly one of racing holders win', async () => {
    const table = new EntityTable((await freshStorage()).table('leases'));
    const results = await Promise.all(['h1', 'h2', 'h3', 'h4'].map((h) => claimOccurrence(table, 'pool/race', 1_000, h)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
  });
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

  it('reconcile each object once between them, one after the other or at once', async () => {
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
    expect([...reconciled(both[0]), ...reconciled(both[1])].sort()).toEqual(names);

    // Without an occurrence (a forced pass, `drover reconcile`) nothing is claimed or skipped.
    expect(reconciled(await runPass(b, { log: silentLog, reason: 'cli', budgetMs: Infinity }))).toEqual(names);
  }, 30_000);
});
