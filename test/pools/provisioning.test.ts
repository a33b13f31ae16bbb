import { describe, expect, it } from 'vitest';
import { reconcileObject } from '../../src/reconcile/object.js';
import { silentLog } from '../../src/log.js';
import { readInventory, toInventoryRow } from '../../src/pool/inventory.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const pool = (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup: 'rg-pools', name },
  creationRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '5m' },
  ...extra,
});

const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const inventory = (rt: Runtime, name: string) => readInventory(rt.table('machines'), name);
const rows = async (rt: Runtime, name: string) => (await inventory(rt, name)).rows.map(toInventoryRow);
const settle = () => new Promise((r) => setTimeout(r, 120));

describe('provisioner against the ARM simulator', () => {
  it('fills a pool of max 25 with chunk 10 in three passes, one capacity write per pass', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-pools', name: 'fill', capacity: 0 });
    const rt = await world.runtime({ pools: [pool('fill', { maxCount: 25, chunkSize: 10 })] });
    const writes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = world.sim.counts.updateScaleSet;
      const outcome = await pass(rt, 'fill');
      expect(outcome.status).toBe('done');
      writes.push(world.sim.counts.updateScaleSet - before);
      await settle();
    }
    expect(writes).toEqual([1, 1, 1]);
    expect(scaleSet.capacity).toBe(25);
    expect(await rows(rt, 'fill')).toHaveLength(25);
    // A fourth pass is at the limit and writes nothing.
    const before = world.sim.counts.updateScaleSet;
    const fourth = await pass(rt, 'fill');
    expect(fourth.status === 'done' && fourth.decision.decision).toBe('at limit');
    expect(world.sim.counts.updateScaleSet).toBe(before);
  });

  it('deletes a VM that failed provisioning, marks its row failed and backs off', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-pools', name: 'faily', capacity: 0 });
    const rt = await world.runtime({ pools: [pool('faily', { maxCount: 3, chunkSize: 3, enableFastDeleteOnFailedProvisioning: true })] });
    scaleSet.failNextCreations(1);
    await pass(rt, 'faily');
    await settle();
    const second = await pass(rt, 'faily');
    expect(second.status === 'done' && second.decision.reason).toMatch(/fast-deleted 1/);
    const failed = (await rows(rt, 'faily')).filter((r) => r.providerStatus === 'ProvisioningFailedPermanent');
    expect(failed).toHaveLength(1);
    expect(world.sim.counts.deleteInstances).toBeGreaterThanOrEqual(1);
    const status = (await inventory(rt, 'faily')).backoff;
    expect(status && status.until - rt.clock.now()).toBeGreaterThan(4 * 60_000);
    // A third pass does not delete it again.
    const deletesBefore = world.sim.counts.deleteInstances;
    await pass(rt, 'faily');
    expect(world.sim.counts.deleteInstances).toBe(deletesBefore);
  });

  it('marks the rows of VMs it fast-deletes failed before asking ARM, so a failed delete trips no safety switch later', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-pools', name: 'faildel', capacity: 0 });
    const config = { pools: [pool('faildel', { maxCount: 2, chunkSize: 2, enableFastDeleteOnFailedProvisioning: true })] };
    const healthy = await world.runtime(config);
    scaleSet.failNextCreations(1);
    await pass(healthy, 'faildel');
    await settle();
    const real = await healthy.scaleSetApi();
    const broken = await world.runtime(config, {
      adapters: {
        scaleSetApi: {
          getScaleSet: (...a) => real.getScaleSet(...a),
          listVms: (...a) => real.listVms(...a),
          setCapacity: (...a) => real.setCapacity(...a),
          deleteInstances: () => Promise.reject(new Error('crash during delete')),
          setPower: (...a) => real.setPower(...a),
          },
      },
    });
    expect((await pass(broken, 'faildel')).status).toBe('failed');
    expect((await rows(healthy, 'faildel')).filter((r) => r.providerStatus === 'ProvisioningFailedPermanent')).toHaveLength(1);
  });

  it('lets eight concurrent passes of one pool create no more machines than one pass would', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-pools', name: 'crowd', capacity: 0 });
    const config = { pools: [pool('crowd', { maxCount: 6, chunkSize: 6 })] };
    const runtimes = await Promise.all(Array.from({ length: 8 }, (_, i) => world.runtime(config, { holder: `instance-${i}` })));
    // Give each its own view of the same tables and queues.
    const outcomes = await Promise.all(runtimes.map((rt) => pass(rt, 'crowd')));
    expect(outcomes.filter((o) => o.status === 'done')).toHaveLength(1);
    expect(scaleSet.capacity).toBe(6);
    await settle();
    await Promise.all(runtimes.map((rt) => pass(rt, 'crowd')));
    expect(scaleSet.capacity).toBe(6);
    expect(await rows(runtimes[0]!, 'crowd')).toHaveLength(6);
  });
});
