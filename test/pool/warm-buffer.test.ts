/**
 * The warm buffer and Spot eviction on Azurite and the ARM simulator, with the real SDK clients
 * (issue 21): `warm.max: 2`, wanted 6 → 2 → 5 parks 2 and deletes 2, then starts the 2 and
 * creates 1; a crash between a mark and its call (or right after the call) loses and doubles
 * nothing; an evicted Spot VM is deleted and replaced without a backoff.
 */
import { describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory } from '../../src/pool/inventory.js';
import { writeWanted } from '../../src/pool/wanted.js';
import { poolStatus } from '../../src/status/pool-status.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { armWorldPerFile } from '../support/arm.js';
import { realAdapter, sizedPool } from './support/sized.js';

const world = armWorldPerFile({ startDelayMs: 50, deallocateDelayMs: 50 });

const RG = 'rg-warm-buffer';
const pool = (name: string, extra: object = {}) => sizedPool(RG)(name, { maxCount: 10, chunkSize: 10, warm: { max: 2 }, ...extra });
const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
const settle = () => new Promise((r) => setTimeout(r, 150));
const want = (rt: Runtime, name: string, n: number) => writeWanted(rt.table('machines'), name, n, 'test', Date.now());
const statuses = async (rt: Runtime, name: string) => (await readInventory(rt.table('machines'), name)).rows.map((r) => r.props.providerStatus).sort();
const powers = (name: string) => world.sim.scaleSet(RG, name).vms().map((v) => v.powerState);
const calls = () => ({ ...world.sim.counts });

/** Passes until the pool has `n` running VMs, each with a Running row. */
async function fillTo(rt: Runtime, name: string, n: number) {
  await want(rt, name, n);
  for (let i = 0; i < 6; i++) {
    await pass(rt, name);
    await settle();
    const running = powers(name).filter((p) => p === 'PowerState/running').length;
    if (running === n && (await statuses(rt, name)).filter((s) => s === 'Running').length === n) return;
  }
  throw new Error(`${name} did not reach ${n} running VMs`);
}

/** A warm.max 2 pool of 4 running VMs, each with a Running row. */
async function fourRunning(name: string) {
  const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name });
  const config = { pools: [pool(name)] };
  const healthy = await world.runtime(config);
  await fillTo(healthy, name, 4);
  return { name, scaleSet, config, healthy };
}

/**
 * A second host on the same config whose power calls die: before the call goes out, or right
 * after ARM accepted it (the process killed before it could write anything more).
 */
async function dyingHost(healthy: Runtime, config: Record<string, unknown>, after: boolean): Promise<Runtime> {
  const real = await healthy.scaleSetApi();
  const scaleSetApi = await realAdapter(healthy, {
    setPower: async (...a) => {
      if (after) await real.setPower(...a);
      throw new Error(`killed ${after ? 'after' : 'before'} the ${a[3]} call`);
    },
  });
  return world.runtime(config, { adapters: { scaleSetApi } });
}

describe('warm.max 2', () => {
  it('wanted 6 → 2 → 5: 2 deallocated and 2 deleted; then the 2 started and 1 created', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'buffer' });
    const rt = await world.runtime({ pools: [pool('buffer')] });
    await fillTo(rt, 'buffer', 6);

    const before = calls();
    await want(rt, 'buffer', 2);
    const scaledIn = await pass(rt, 'buffer');
    expect(decisionOf(scaledIn)?.decision).toBe('scaled in 2, parked 2');
    // One delete call and one deallocate call, by instance id; no capacity write.
    expect(world.sim.counts.deleteInstances - before.deleteInstances).toBe(1);
    expect(world.sim.counts.deallocateVms - before.deallocateVms).toBe(1);
    expect(world.sim.counts.updateScaleSet).toBe(before.updateScaleSet);
    await settle();
    await pass(rt, 'buffer');
    await pass(rt, 'buffer');
    // Newest first: 5 and 4 parked, 3 and 2 deleted; 0 and 1 serve.
    expect(scaleSet.vms().map((v) => [v.instanceId, v.powerState])).toEqual([
      ['0', 'PowerState/running'],
      ['1', 'PowerState/running'],
      ['4', 'PowerState/deallocated'],
      ['5', 'PowerState/deallocated'],
    ]);
    expect(scaleSet.capacity).toBe(4);
    expect(await statuses(rt, 'buffer')).toEqual(['Parked', 'Parked', 'Running', 'Running']);
    const status = await poolStatus(rt, rt.config.pools[0]!);
    expect(status.counts).toMatchObject({ healthy: 2, warm: 2, stopped: 0 });

    const parked = calls();
    await want(rt, 'buffer', 5);
    const woken = await pass(rt, 'buffer');
    expect(decisionOf(woken)?.decision).toBe('started 2 parked, raised capacity 4 → 5');
    expect(world.sim.counts.startVms - parked.startVms).toBe(1);
    expect(world.sim.counts.updateScaleSet - parked.updateScaleSet).toBe(1);
    await settle();
    await pass(rt, 'buffer');
    await pass(rt, 'buffer');
    // The two parked VMs serve again; one VM was created (6); nothing more deleted.
    expect(scaleSet.vms().map((v) => [v.instanceId, v.powerState])).toEqual(['0', '1', '4', '5', '6'].map((id) => [id, 'PowerState/running']));
    expect(await statuses(rt, 'buffer')).toEqual(Array(5).fill('Running'));
    expect(world.sim.counts.deleteInstances).toBe(parked.deleteInstances);
    expect((await poolStatus(rt, rt.config.pools[0]!)).counts).toMatchObject({ healthy: 5, warm: 0 });
  });

  it.each([
    { when: 'before the deallocate call went out', after: false },
    { when: 'right after the deallocate call', after: true },
  ])('killed $when: the VMs are parked once, none lost', async ({ after }) => {
    const { name, scaleSet, config, healthy } = await fourRunning(after ? 'park-after' : 'park-before');
    const dying = await dyingHost(healthy, config, after);
    const before = calls();
    await want(healthy, name, 2);
    expect((await pass(dying, name)).status).toBe('failed');
    expect(await statuses(healthy, name)).toEqual(['Parked', 'Parked', 'Running', 'Running']);
    await settle();
    for (let i = 0; i < 3; i++) await pass(healthy, name);
    // One call reached ARM either way: the healthy pass's when the dying one's never went out, none more after it did.
    expect(world.sim.counts.deallocateVms - before.deallocateVms).toBe(1);
    expect(world.sim.counts.deleteInstances).toBe(before.deleteInstances);
    expect(scaleSet.vms().map((v) => v.powerState).sort()).toEqual(['PowerState/deallocated', 'PowerState/deallocated', 'PowerState/running', 'PowerState/running']);
    expect(scaleSet.capacity).toBe(4);
    expect(await statuses(healthy, name)).toEqual(['Parked', 'Parked', 'Running', 'Running']);
  });

  it.each([
    { when: 'before the start call went out', after: false },
    { when: 'right after the start call', after: true },
  ])('killed $when: the parked VMs are started, and exactly 1 VM created', async ({ after }) => {
    const { name, scaleSet, config, healthy } = await fourRunning(after ? 'wake-after' : 'wake-before');
    await want(healthy, name, 2);
    await pass(healthy, name);
    await settle();
    await pass(healthy, name);
    expect(await statuses(healthy, name)).toEqual(['Parked', 'Parked', 'Running', 'Running']);

    const dying = await dyingHost(healthy, config, after);
    const before = calls();
    await want(healthy, name, 5);
    expect((await pass(dying, name)).status).toBe('failed');
    // The raise never went out: it waits for every start.
    expect(world.sim.counts.updateScaleSet).toBe(before.updateScaleSet);
    expect(await statuses(healthy, name)).toEqual(['Running', 'Running', 'Waking', 'Waking']);
    await settle();
    for (let i = 0; i < 3; i++) {
      await pass(healthy, name);
      await settle();
    }
    // One start reached ARM either way, and one capacity write created the one VM the parked ones could not cover.
    expect(world.sim.counts.startVms - before.startVms).toBe(1);
    expect(world.sim.counts.updateScaleSet - before.updateScaleSet).toBe(1);
    expect(scaleSet.capacity).toBe(5);
    expect(scaleSet.vms().map((v) => v.powerState)).toEqual(Array(5).fill('PowerState/running'));
    expect(await statuses(healthy, name)).toEqual(Array(5).fill('Running'));
  });
});

describe('Spot eviction', () => {
  it('an evicted VM is deleted by instance id and replaced, with no creation backoff', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'spot', priority: 'Spot' });
    const rt = await world.runtime({ pools: [pool('spot', { warm: { max: 0 } })] });
    await fillTo(rt, 'spot', 3);
    scaleSet.evict('1');
    const before = calls();
    const evicted = await pass(rt, 'spot');
    expect(decisionOf(evicted)?.reason).toContain('1 Spot VM(s) evicted by Azure');
    expect(world.sim.counts.deleteInstances - before.deleteInstances).toBe(1);
    for (let i = 0; i < 3; i++) {
      await settle();
      await pass(rt, 'spot');
    }
    expect(scaleSet.vms().map((v) => [v.instanceId, v.powerState])).toEqual(['0', '2', '3'].map((id) => [id, 'PowerState/running']));
    expect((await readInventory(rt.table('machines'), 'spot')).backoff).toBeUndefined();
    expect(await statuses(rt, 'spot')).toEqual(Array(3).fill('Running'));
  });

  it('with a parked VM at hand, an evicted one is replaced by starting it: no VM created', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'spot-warm', priority: 'Spot' });
    const rt = await world.runtime({ pools: [pool('spot-warm', { warm: { max: 1 } })] });
    await fillTo(rt, 'spot-warm', 3);
    await want(rt, 'spot-warm', 2);
    await pass(rt, 'spot-warm');
    await settle();
    scaleSet.evict('0');
    const before = calls();
    for (let i = 0; i < 3; i++) {
      await pass(rt, 'spot-warm');
      await settle();
    }
    expect(world.sim.counts.startVms - before.startVms).toBe(1);
    expect(world.sim.counts.updateScaleSet).toBe(before.updateScaleSet);
    expect(scaleSet.vms().map((v) => [v.instanceId, v.powerState])).toEqual(['1', '2'].map((id) => [id, 'PowerState/running']));
  });

  it('not Spot: a VM deallocated by someone else in a pool sized to 3 is replaced from the buffer (3 running again, no VM created) and taken into it', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'regular' });
    const rt = await world.runtime({ pools: [pool('regular')] });
    await fillTo(rt, 'regular', 5);
    await want(rt, 'regular', 3);
    await pass(rt, 'regular');
    await settle();
    expect(await statuses(rt, 'regular')).toEqual(['Parked', 'Parked', 'Running', 'Running', 'Running']);
    const victim = scaleSet.vms().find((v) => v.powerState === 'PowerState/running')!.instanceId;
    scaleSet.updateVm(victim, { powerState: 'PowerState/deallocated' });
    const before = calls();
    await pass(rt, 'regular');
    // Seen for what it is before anything is done about it: stopped, not Running.
    const seen = (await poolStatus(rt, rt.config.pools[0]!)).instances.find((i) => i.id.endsWith(`/${victim}`));
    expect(seen).toMatchObject({ state: 'Stopped', powerState: 'PowerState/deallocated' });
    for (let i = 0; i < 3; i++) {
      await settle();
      await pass(rt, 'regular');
    }
    expect(powers('regular').filter((p) => p === 'PowerState/running')).toHaveLength(3);
    expect(world.sim.counts.startVms - before.startVms).toBe(1);
    expect(world.sim.counts.updateScaleSet).toBe(before.updateScaleSet);
    expect(world.sim.counts.deleteInstances).toBe(before.deleteInstances);
    // The stopped VM stays in the buffer (warm.max 2: one of Drover's was started), now Drover's to start or delete.
    expect(await statuses(rt, 'regular')).toEqual(['Parked', 'Parked', 'Running', 'Running', 'Running']);
    expect((await poolStatus(rt, rt.config.pools[0]!)).counts).toMatchObject({ healthy: 3, stopped: 0, warm: 2 });
  });
});
