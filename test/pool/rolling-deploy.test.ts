// Issue 22, one configuration at a time, for pools: two hosts on one storage account whose
// configurations give the pool different sizes (maxCount 3 and 5), on Azurite and the ARM
// simulator. Once the newer host has reconciled the pool, the older one writes nothing to it:
// no capacity raise, no delete, no inventory or cache row.
import { describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { readGeneration } from '../../src/pool/generation.js';
import { poolStatus } from '../../src/status/pool-status.js';
import { armWorldPerFile } from '../support/arm.js';
import { realAdapter } from './support/sized.js';

const world = armWorldPerFile();
const RG = 'rg-rolling';
const pool = (maxCount: number) => ({ name: 'p', scaleSet: { resourceGroup: RG, name: 'ss' }, maxCount, creationRate: '0s,1', reconcileRate: '0s,1', instanceCache: { ttl: '0s' } });
const pass = (rt: Runtime) => reconcileObject(rt, { kind: 'pool', name: 'p' }, { reason: 'test' }, { log: silentLog });

describe('a rolling deploy: two pool sizes on one storage account', () => {
  it('the newer configuration (maxCount 5) wins over the older (3): the older host leaves the pool alone', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'ss', capacity: 1 });
    const older = await world.runtime({ pools: [pool(3)] }, { configSeq: 100 });
    const shared = { storage: { connection: older.config.storage!.connection, prefix: older.storage.prefix } };
    const newer = await world.runtime({ ...shared, pools: [pool(5)] }, { configSeq: 200 });
    await newer.configuration.newest.announce();
    // The old deployment was there first: it filled the pool to its 3.
    await pass(older);
    expect(scaleSet.capacity).toBe(3);

    for (let round = 0; round < 6; round++) {
      await pass(newer);
      const writes = { ...world.sim.counts };
      const stamp = (await readGeneration(newer.table('machines'), 'p'))?.props;
      expect(await pass(older)).toMatchObject({ status: 'done', decision: { decision: 'left to a newer configuration' } });
      // Not one ARM write, and the pool's state row as the newer host left it.
      expect([world.sim.counts.updateScaleSet, world.sim.counts.deleteInstances]).toEqual([writes.updateScaleSet, writes.deleteInstances]);
      expect((await readGeneration(newer.table('machines'), 'p'))?.props).toEqual(stamp);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(scaleSet.capacity).toBe(5);
    expect((await readGeneration(newer.table('machines'), 'p'))?.props.configSeq).toBe(200);
    expect((await poolStatus(older, older.config.pools[0]!)).leftAlone).toBe('left to a newer configuration (seq 200)');
    expect((await poolStatus(newer, newer.config.pools[0]!)).leftAlone).toBeUndefined();
  }, 60_000);

  it('the newer host stamps the pool before its first write: the older one sees the stamp before any capacity change', async () => {
    world.sim.addScaleSet({ resourceGroup: RG, name: 'ss2', capacity: 1 });
    const pool2 = (maxCount: number) => ({ ...pool(maxCount), name: 'p2', scaleSet: { resourceGroup: RG, name: 'ss2' } });
    const older = await world.runtime({ pools: [pool2(3)] }, { configSeq: 100 });
    await reconcileObject(older, { kind: 'pool', name: 'p2' }, { reason: 'test' }, { log: silentLog });
    expect((await readGeneration(older.table('machines'), 'p2'))?.props.configSeq).toBe(100);
    const shared = { storage: { connection: older.config.storage!.connection, prefix: older.storage.prefix } };
    const stampsAtWrite: unknown[] = [];
    const scaleSetApi = await realAdapter(older, {
      setCapacity: async (...a) => {
        stampsAtWrite.push((await readGeneration(older.table('machines'), 'p2'))?.props.configSeq);
        return (await older.scaleSetApi()).setCapacity(...a);
      },
    });
    const newer = await world.runtime({ ...shared, pools: [pool2(5)] }, { configSeq: 200, adapters: { scaleSetApi } });
    await newer.configuration.newest.announce();
    await reconcileObject(newer, { kind: 'pool', name: 'p2' }, { reason: 'test' }, { log: silentLog });
    expect(stampsAtWrite).toEqual([200]);
  }, 60_000);
});
