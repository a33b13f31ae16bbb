// Issue 22: one VM listing answered 429 with a year's Retry-After (in seconds, or as an HTTP date
// in 9999) froze the pool's cache until then, so a VM removed at ARM was never replaced. Drover
// honours a Retry-After for 30 min at most, and status says both the capped time and what ARM asked.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { MAX_RETRY_AFTER_MS } from '../../src/limits.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { poolStatus } from '../../src/status/pool-status.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const settle = () => new Promise((r) => setTimeout(r, 150));

describe('a VM listing throttled with a huge Retry-After', () => {
  it.each([
    { name: 'a year in seconds', suffix: 'secs', retryAfter: () => '31536000' },
    { name: 'an HTTP date in 9999', suffix: 'date', retryAfter: () => 'Fri, 31 Dec 9999 23:59:59 GMT' },
  ])('$name: the cache is listed again within 30 min and a VM removed at ARM is replaced', async ({ suffix, retryAfter }) => {
    const name = `frozen-${suffix}`;
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-pools', name, capacity: 0 });
    const clock = new ManualClock(Date.now());
    const config = { name, scaleSet: { resourceGroup: 'rg-pools', name }, maxCount: 3, chunkSize: 3, creationRate: '0s,1', reconcileRate: '0s,1', instanceCache: { ttl: '5m' } };
    const rt = await world.runtime({ pools: [config] }, { clock });
    await pass(rt, name);
    await settle();
    clock.advance(6 * 60_000);
    await pass(rt, name);
    expect(scaleSet.vms()).toHaveLength(3);

    clock.advance(6 * 60_000);
    world.sim.throttleNext(1, { retryAfter: retryAfter(), operations: ['listVms'] });
    await pass(rt, name);
    const throttledAt = clock.now();
    const status = await poolStatus(rt, rt.config.pools[0]!);
    expect(status.cache?.throttledUntil).toBe(new Date(throttledAt + MAX_RETRY_AFTER_MS).toISOString());
    expect(status.cache?.lastError).toMatch(/retry after 1800 s \(it asked for \d+ s; Drover waits at most 30 min\)/);
    expect(Date.parse(status.cache!.nextRefresh!)).toBeLessThanOrEqual(throttledAt + MAX_RETRY_AFTER_MS);

    const removed = scaleSet.vms()[0]!;
    scaleSet.removeVm(removed.name);
    const listingsBefore = world.sim.counts.listVms;
    // Passes every 5 min: none lists while throttled, and the first one at 30 min does.
    for (let minutes = 5; minutes <= 30; minutes += 5) {
      clock.advance(5 * 60_000);
      await pass(rt, name);
      await settle();
      if (minutes < 30) expect(world.sim.counts.listVms).toBe(listingsBefore);
    }
    expect(world.sim.counts.listVms).toBeGreaterThan(listingsBefore);
    for (let n = 0; n < 3 && scaleSet.vms().length < 3; n++) {
      await pass(rt, name);
      await settle();
    }
    const names = scaleSet.vms().map((v) => v.name);
    expect(names).toHaveLength(3);
    expect(names).not.toContain(removed.name);
  }, 60_000);
});
