/**
 * The audit's bugs in the pool path, each reproduced on Azurite and the ARM simulator through
 * the whole reconcile (issue 21): every test here failed on the code before its fix.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readInventory } from '../../src/pool/inventory.js';
import { poolCache } from '../../src/pool/reconcile-pool.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { ObjectOutcome } from '../../src/job/context.js';
import { armWorld, armWorldPerFile } from '../support/arm.js';

const world = armWorldPerFile();

const RG = 'rg-audit';
const MIN = 60_000;
const pool = (name: string, extra: object = {}) => ({
  name,
  scaleSet: { resourceGroup: RG, name },
  creationRate: '0s,1',
  reconcileRate: '0s,1',
  instanceCache: { ttl: '0s' },
  ...extra,
});
const pass = (rt: Runtime, name: string, reason = 'test') => reconcileObject(rt, { kind: 'pool', name }, { reason }, { log: silentLog });
const decisionOf = (o: ObjectOutcome) => (o.status === 'done' || o.status === 'failed' ? o.decision : undefined);
/** A clock the test moves on by hand (the simulator keeps the real one). */
function movable(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, sleep: systemClock.sleep, advance: (ms) => (offset += ms) };
}

describe('bug 1: the creation backoff counts a broken VM once', () => {
  it('a delete answered 409 on 4 passes a minute apart leaves 1 failure and 5 min, not 4 and 30', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'b1', vms: [{}, { provisioningState: 'Failed', powerState: 'PowerState/stopped' }] });
    const clock = movable();
    const rt = await world.runtime({ pools: [pool('b1', { maxCount: 2, enableFastDeleteOnFailedProvisioning: true })] }, { clock });
    world.sim.failNext(4, { status: 409, code: 'OperationNotAllowed', message: 'another operation is in progress', operations: ['deleteInstances'] });
    const first = clock.now();
    for (let i = 0; i < 4; i++) {
      const outcome = await pass(rt, 'b1');
      expect(outcome.status).toBe('failed');
      clock.advance(MIN);
    }
    const { backoff } = await readInventory(rt.table('machines'), 'b1');
    expect(backoff?.failures).toBe(1);
    expect(backoff!.until - first).toBeGreaterThanOrEqual(5 * MIN);
    expect(backoff!.until - first).toBeLessThan(5 * MIN + 10_000);
    // The fifth pass's delete goes out, still under the first failure's backoff.
    const fifth = await pass(rt, 'b1');
    expect(decisionOf(fifth)?.decision).toBe('fast-deleted 1');
    expect((await readInventory(rt.table('machines'), 'b1')).backoff?.failures).toBe(1);
    expect(scaleSet.capacity).toBe(1);
  });
});

describe('bug 2: fast delete never deletes a VM twice', () => {
  it('a CSE-failed VM that ARM lists as Deleting, the extension error still in its view, is not deleted again', async () => {
    const slow = await armWorld({ deleteDelayMs: 60_000 });
    try {
      const cse = { provisioningState: 'Succeeded', powerState: 'PowerState/running', extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error' as const, message: 'script exited 1' }] }] };
      slow.sim.addScaleSet({ resourceGroup: RG, name: 'b2', vms: [{}, cse] });
      const rt = await slow.runtime({ pools: [pool('b2', { maxCount: 2, enableFastDeleteOnFailedProvisioning: true, enableDetailedCSEMessage: true })] });
      // The first pass adopts the VMs, marks the broken one and deletes it.
      await pass(rt, 'b2');
      expect(slow.sim.counts.deleteInstances).toBe(1);
      // The cache lists again: ARM shows the VM Deleting, its extension error still there.
      for (let i = 0; i < 2; i++) await pass(rt, 'b2');
      expect(slow.sim.scaleSet(RG, 'b2').vms().map((v) => v.provisioningState)).toContain('Deleting');
      expect(slow.sim.counts.deleteInstances).toBe(1);
    } finally {
      await slow.sim.close();
      rmSync(slow.dir, { recursive: true, force: true });
    }
  });
});

describe('bug 3: a forced relist honours Retry-After', () => {
  it('two forced relists 20 s apart under a 120 s Retry-After list once, and serve what is stored', async () => {
    world.sim.addScaleSet({ resourceGroup: RG, name: 'b3', capacity: 2 });
    const clock = movable();
    const rt = await world.runtime({ pools: [pool('b3', { maxCount: 2 })] }, { clock });
    const cache = poolCache(rt, rt.config.pools[0]!, await rt.scaleSetApi(), silentLog);
    await cache.forceUpdate();
    world.sim.throttleNext(1, { retryAfter: 120, operations: ['listVms'] });
    const lists = world.sim.counts.listVms;
    const throttled = await cache.forceUpdate();
    expect(throttled.read.ok && throttled.read.instances).toHaveLength(2);
    clock.advance(20_000);
    const again = await cache.forceUpdate();
    expect(again.listed).toBe(false);
    expect(again.read.ok && again.read.instances).toHaveLength(2);
    expect(world.sim.counts.listVms).toBe(lists + 1);
    clock.advance(101_000);
    expect((await cache.forceUpdate()).listed).toBe(true);
    expect(world.sim.counts.listVms).toBe(lists + 2);
  });
});

describe("bug 4: the pool's recheck of unfinished work is not refused by its reconcile rate", () => {
  it('with the default 1m,1, the 15 s recheck after a delete ARM still runs goes through; a forced pass does not', async () => {
    const slow = await armWorld({ deleteDelayMs: 60_000 });
    try {
      const scaleSet = slow.sim.addScaleSet({ resourceGroup: RG, name: 'b4', vms: [{}, { provisioningState: 'Failed', powerState: 'PowerState/stopped' }] });
      const real = await slow.runtime({ pools: [{ ...pool('b4', { maxCount: 2, enableFastDeleteOnFailedProvisioning: true }), reconcileRate: '1m,1' }] });
      // The real sender sends; the test also keeps what was sent (a delayed message is not visible yet).
      const sent: { reason: string }[] = [];
      const rt: Runtime = { ...real, queues: { ...real.queues, reconcile: async (m, delay) => (sent.push(m), real.queues.reconcile(m, delay)) } };
      // The first pass adopts, fast-deletes the broken VM and, ARM still deleting it, asks for a recheck.
      await pass(rt, 'b4');
      expect(slow.sim.counts.deleteInstances).toBe(1);
      expect(sent).toHaveLength(1);
      scaleSet.addVm();
      expect(decisionOf(await pass(rt, 'b4', 'forced'))?.decision).toBe('rate limited');
      const recheck = await pass(rt, 'b4', sent[0]!.reason);
      expect(recheck.status).toBe('done');
      expect(decisionOf(recheck)?.decision).not.toBe('rate limited');
    } finally {
      await slow.sim.close();
      rmSync(slow.dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('bug 5: a 429 on the scale set GET serves the stored read', () => {
  it('the pass goes on from the scale set read stored on the cache, as a 429 on the listing does', async () => {
    // A world of its own: the throttle rule must not outlive the test.
    const own = await armWorld();
    try {
      const scaleSet = own.sim.addScaleSet({ resourceGroup: RG, name: 'b5', capacity: 2 });
      const clock = movable();
      const rt = await own.runtime({ pools: [pool('b5', { maxCount: 3 })] }, { clock });
      await pass(rt, 'b5');
      await new Promise((r) => setTimeout(r, 120));
      await pass(rt, 'b5');
      expect(scaleSet.capacity).toBe(3);
      // The stored read is older than its period: the pass asks ARM, which refuses every GET.
      clock.advance(10 * MIN);
      own.sim.throttleNext(100, { retryAfter: 60, operations: ['getScaleSet'] });
      scaleSet.addVm();
      const throttled = await pass(rt, 'b5');
      expect(throttled.status).toBe('done');
      expect(own.sim.counts.throttled).toBeGreaterThan(0);
    } finally {
      await own.sim.close();
      rmSync(own.dir, { recursive: true, force: true });
    }
  });
});

describe('bug 6: a row marked failed recovers', () => {
  it('a VM marked ProvisioningFailedPermanent that is running and healthy again is marked Running', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: RG, name: 'b6', vms: [{}, { provisioningState: 'Failed', powerState: 'PowerState/stopped' }] });
    const rt = await world.runtime({ pools: [pool('b6', { maxCount: 2, enableFastDeleteOnFailedProvisioning: true })] });
    // The delete is refused: the VM stays, its row marked failed.
    world.sim.failNext(1, { status: 409, code: 'OperationNotAllowed', operations: ['deleteInstances'] });
    await pass(rt, 'b6');
    const statusOf = async () => (await readInventory(rt.table('machines'), 'b6')).rows.find((r) => r.rowKey.endsWith('/virtualMachines/1'))?.props;
    expect((await statusOf())?.providerStatus).toBe('ProvisioningFailedPermanent');
    scaleSet.updateVm('1', { provisioningState: 'Succeeded', powerState: 'PowerState/running' });
    const recovered = await pass(rt, 'b6');
    expect(recovered.status).toBe('done');
    expect(decisionOf(recovered)?.reason).toMatch(/healthy again/);
    expect(await statusOf()).toMatchObject({ providerStatus: 'Running' });
    expect((await statusOf())?.brokenAt).toBeUndefined();
    expect(world.sim.counts.deleteInstances).toBeGreaterThan(0);
  });
});
