// Issue 22: a host whose clock is wrong cannot make a correct one skip its objects. Two hosts on
// one storage account, one of them an hour ahead (its clock skewed in-process); the storage
// service's clock, shared by both, is the test's clock moved by hand.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { nextOccurrence } from '../../src/host/schedule.js';
import { silentLog } from '../../src/log.js';
import { runPass, type PassReport } from '../../src/reconcile/pass.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { simulatedService } from '../../src/state/service-clock.js';
import { armWorldPerFile } from '../support/arm.js';
import { skewedClock } from '../support/skew.js';

const SCHEDULE = '0 */1 * * * *';
const HOUR = 3_600_000;

const world = armWorldPerFile();

const reconciled = (report: PassReport) => report.outcomes.filter((o) => o.status === 'done').map((o) => o.ref.name).sort();
/** The objects a pass wrote to (it took their leases): a pass that finds an object as it left it writes nothing. */
const wrote = (report: PassReport) => report.outcomes.filter((o) => o.status === 'done' && o.wrote).map((o) => o.ref.name).sort();
/** A timer pass of `rt` for the next occurrence on its own clock, as its timer would run it. */
const timerPass = (rt: Runtime) => runPass(rt, { log: silentLog, reason: 'timer', occurrence: nextOccurrence(SCHEDULE, rt.clock.now()), budgetMs: Infinity });

async function twoHosts(group: string) {
  const names = ['a', 'b', 'c'].map((n) => `${group}-${n}`);
  for (const name of names) world.sim.addScaleSet({ resourceGroup: `rg-${group}`, name, capacity: 1 });
  const config = { pools: names.map((name) => ({ name, scaleSet: { resourceGroup: `rg-${group}`, name }, maxCount: 1, reconcileRate: '0s,1', creationRate: '0s,1' })) };
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 10, 0, 5));
  const serviceClock = simulatedService(clock);
  const correct = await world.runtime(config, { clock, serviceClock, holder: 'correct' });
  const shared = { ...config, storage: { connection: correct.config.storage!.connection, prefix: correct.storage.prefix } };
  const ahead = await world.runtime(shared, { clock: skewedClock(clock, HOUR), serviceClock, holder: 'ahead' });
  return { names, clock, correct, ahead };
}

describe('two hosts, one an hour ahead', () => {
  it('after the skewed host ran a pass, the correct one reconciles every object in each of its periods', async () => {
    const { names, clock, correct, ahead } = await twoHosts('burst');
    // The skewed host's pass claims every object (what a clock an hour ahead for 5 s leaves behind).
    expect(reconciled(await timerPass(ahead))).toEqual(names);
    for (let period = 1; period <= 3; period++) {
      clock.advance(60_000);
      expect(reconciled(await timerPass(correct))).toEqual(names);
    }
  }, 30_000);

  it('while both run, every object is written once in a period that has something to write, by one host or the other', async () => {
    const { names, clock, correct, ahead } = await twoHosts('both');
    for (let period = 1; period <= 3; period++) {
      const order = period % 2 ? [ahead, correct] : [correct, ahead];
      const reports = [];
      for (const rt of order) reports.push(await timerPass(rt));
      // An object is written by one host at most (the other finds it claimed, or as the first
      // left it: a look that finds nothing to write takes no lease); it is done by at least one.
      const claimed = reports.flatMap((r) => r.outcomes.filter((o) => o.status === 'claimed').map((o) => o.ref.name));
      expect([...reports.flatMap(reconciled), ...claimed].sort()).toEqual([...names, ...names].sort());
      expect(new Set(reports.flatMap(reconciled))).toEqual(new Set(names));
      const written = reports.flatMap(wrote).sort();
      expect(new Set(written).size).toBe(written.length);
      if (period === 1) expect(written).toEqual(names);
      clock.advance(60_000);
    }
  }, 30_000);
});
