/**
 * Sized pools on Azurite and the ARM simulator (issue 21): the wanted count a target writes
 * (`~wanted`), carried out by the pool: raises in chunks, scale-in by instance id with broken
 * VMs first, never a capacity write down, never a protected VM.
 */
import { describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory } from '../../src/pool/inventory.js';
import { writeWanted } from '../../src/pool/wanted.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { armWorldPerFile } from '../support/arm.js';
import { sizedPool } from './support/sized.js';
import { pushThenReconcile } from '../support/push.js';

const world = armWorldPerFile();

const RG = 'rg-scale-in';
const pool = sizedPool(RG);
const pass = (rt: Runtime, name: string) => reconcileObject(rt, { kind: 'pool', name }, { reason: 'test' }, { log: silentLog });
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
const settle = () => new Promise((r) => setTimeout(r, 150));
const want = (rt: Runtime, name: string, n: number) => writeWanted(rt.table('machines'), name, n, 'test', Date.now());

describe('a pool sized by a wanted count', () => {
  it('2 → 8 → 3: raised in chunks of chunkSize, then exactly 5 VMs deleted by instance id, the broken one first; capacity never written down', async () => {
    const cse = { provisioningState: 'Succeeded', powerState: 'PowerState/running', extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error' as const, message: 'exit 1' }] }] };
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'sized', vms: [cse, {}] });
    const rt = await world.runtime({ pools: [pool('sized', { maxCount: 10, chunkSize: 3, enableDetailedCSEMessage: true })] });
    await want(rt, 'sized', 2);
    await pass(rt, 'sized');
    expect(scaleSet.capacity).toBe(2);

    await want(rt, 'sized', 8);
    const capacities: number[] = [scaleSet.capacity];
    for (let i = 0; i < 6 && scaleSet.capacity < 8; i++) {
      await pass(rt, 'sized');
      capacities.push(scaleSet.capacity);
      await settle();
    }
    expect(capacities).toEqual([2, 5, 8]);
    await pass(rt, 'sized');
    // The broken VM has no row (never adopted), and counts as managed.
    expect((await readInventory(rt.table('machines'), 'sized')).rows).toHaveLength(7);

    const writes = world.sim.counts.updateScaleSet;
    const deletes = world.sim.counts.deleteInstances;
    await want(rt, 'sized', 3);
    const scaledIn = await pass(rt, 'sized');
    expect(decisionOf(scaledIn)?.decision).toBe('scaled in 5');
    // ⌈5 / 3⌉ calls, by instance id; no capacity write at all.
    expect(world.sim.counts.deleteInstances - deletes).toBe(2);
    expect(world.sim.counts.updateScaleSet).toBe(writes);
    // The broken VM 0 went first; then newest first: of the running VMs, 1, 2 and 3 stay.
    expect(scaleSet.vms().filter((v) => v.provisioningState !== 'Deleting').map((v) => v.instanceId)).toEqual(['1', '2', '3']);
    await settle();
    await pass(rt, 'sized');
    await pass(rt, 'sized');
    expect(scaleSet.capacity).toBe(3);
    expect((await readInventory(rt.table('machines'), 'sized')).rows.map((r) => r.rowKey.split('/').pop()).sort()).toEqual(['1', '2', '3']);
    expect(world.sim.counts.deleteInstances - deletes).toBe(2);
    expect(world.sim.counts.updateScaleSet).toBe(writes);
  });

  it('5 VMs of which 4 are protected, wanted 1: one VM deleted, the pool stays at 4 and says why', async () => {
    const guarded = { protectFromScaleIn: true };
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'guarded', vms: [guarded, {}, guarded, { protectFromScaleSetActions: true }, guarded] });
    const rt = await world.runtime({ pools: [pool('guarded', { maxCount: 5 })] });
    await pass(rt, 'guarded');
    await want(rt, 'guarded', 1);
    const outcome = await pass(rt, 'guarded');
    expect(decisionOf(outcome)?.reason).toContain('4 protected VMs kept above the wanted 1');
    expect(scaleSet.vms().filter((v) => v.provisioningState !== 'Deleting').map((v) => v.instanceId)).toEqual(['0', '2', '3', '4']);
    await settle();
    await pass(rt, 'guarded');
    const again = await pass(rt, 'guarded');
    expect(decisionOf(again)?.reason).toContain('4 protected VMs kept above the wanted 1');
    expect(scaleSet.capacity).toBe(4);
  });
});

describe('a target whose scaleTargetRef is a pool', () => {
  it('writes the wanted count to the pool from pushed load, and the pool carries it out both ways', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'by-target', capacity: 2 });
    const rt = await world.runtime({
      pools: [pool('by-target', { maxCount: 6, chunkSize: 6 })],
      targets: [{ name: 'jobs', scaleTargetRef: { kind: 'Pool', name: 'by-target' }, policy: 'knative', minScale: 1, maxScale: 10, scaleToZero: { enabled: false }, load: { source: 'push', targetPerReplica: 1 } }],
    });
    await pass(rt, 'by-target');
    const target = (load: number) => pushThenReconcile(rt, { kind: 'target', name: 'jobs' }, load, { reason: 'test' }, { log: silentLog });
    // A target seen for the first time is adopted as it runs; the next pass acts.
    for (let i = 0; i < 3 && (await readInventory(rt.table('machines'), 'by-target')).wanted !== 5; i++) await target(5);
    expect((await readInventory(rt.table('machines'), 'by-target')).wanted).toBe(5);
    await pass(rt, 'by-target');
    expect(scaleSet.capacity).toBe(5);
    await settle();
    await pass(rt, 'by-target');
    // Load falls: the target lowers the wanted count (as its scale-down policy allows), the pool deletes by instance id.
    await target(2);
    const lowered = (await readInventory(rt.table('machines'), 'by-target')).wanted!;
    expect(lowered).toBeLessThan(5);
    const writes = world.sim.counts.updateScaleSet;
    await pass(rt, 'by-target');
    expect(world.sim.counts.updateScaleSet).toBe(writes);
    await settle();
    await pass(rt, 'by-target');
    expect(scaleSet.capacity).toBe(lowered);
  });
});

describe('a scale-in under concurrency and crashes', () => {
  it('8 concurrent passes on one sized pool: the excess deleted once each, none lost', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'crowd', capacity: 10 });
    const config = { pools: [pool('crowd', { maxCount: 10, chunkSize: 4 })] };
    const first = await world.runtime(config);
    await pass(first, 'crowd');
    await want(first, 'crowd', 3);
    const deletes = world.sim.counts.deleteInstances;
    const hosts = await Promise.all(Array.from({ length: 8 }, (_, i) => world.runtime(config, { holder: `host-${i}` })));
    await Promise.all(hosts.map((rt) => pass(rt, 'crowd')));
    await settle();
    for (const rt of hosts.slice(0, 2)) await pass(rt, 'crowd');
    // ⌈7 / 4⌉ calls for 7 VMs, whichever host made them; 3 VMs left, each with its row.
    expect(world.sim.counts.deleteInstances - deletes).toBe(2);
    expect(scaleSet.vms()).toHaveLength(3);
    const rows = (await readInventory(first.table('machines'), 'crowd')).rows.map((r) => r.rowKey).sort();
    expect(rows).toEqual(scaleSet.vms().map((v) => `azure://${v.id.replace(RG, RG.toLowerCase())}`).sort());
  });

  it('killed after the rows are marked and before the delete call: a later pass deletes them, once', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'killed', capacity: 5 });
    const config = { pools: [pool('killed', { maxCount: 5, chunkSize: 5 })] };
    const healthy = await world.runtime(config);
    await pass(healthy, 'killed');
    await want(healthy, 'killed', 2);
    const real = await healthy.scaleSetApi();
    const dying = await world.runtime(config, {
      adapters: {
        scaleSetApi: {
          getScaleSet: (...a) => real.getScaleSet(...a),
          listVms: (...a) => real.listVms(...a),
          setCapacity: (...a) => real.setCapacity(...a),
          deleteInstances: () => Promise.reject(new Error('killed before the delete call went out')),
          setPower: (...a) => real.setPower(...a),
        },
      },
    });
    const deletes = world.sim.counts.deleteInstances;
    expect((await pass(dying, 'killed')).status).toBe('failed');
    const marked = (await readInventory(healthy.table('machines'), 'killed')).rows.filter((r) => r.props.providerStatus === 'Deleting');
    expect(marked).toHaveLength(3);
    expect(scaleSet.vms()).toHaveLength(5);
    await settle();
    await pass(healthy, 'killed');
    await settle();
    await pass(healthy, 'killed');
    await pass(healthy, 'killed');
    expect(world.sim.counts.deleteInstances - deletes).toBe(1);
    expect(scaleSet.vms()).toHaveLength(2);
    expect((await readInventory(healthy.table('machines'), 'killed')).rows).toHaveLength(2);
  });
});
