// A pass takes its object's lease at its first write (src/state/lease-on-write.ts): on the ARM
// simulator and Azurite, a warm pool's pass finishes while another holder has the lease (it reads
// and writes nothing), and a pass that has something to write finds the object busy instead.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { armWorldPerFile } from '../support/arm.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startTargetWorld, WEB, webTarget } from '../targets/support.js';

const world = armWorldPerFile();

describe('the lease taken at the first write', () => {
  it('a warm pass needs none; a pass with something to write is busy while another holder has it', async () => {
    const scaleSet = world.sim.addScaleSet({ resourceGroup: 'rg-lazy', name: 'lazy', capacity: 2 });
    const clock = new ManualClock(Date.UTC(2026, 11, 6, 10, 0, 0));
    // No jitter: the cache lists again exactly one period after its first listing, past this test's passes.
    const rt = await world.runtime({ pools: [{ name: 'lazy', scaleSet: { resourceGroup: 'rg-lazy', name: 'lazy' }, maxCount: 2, reconcileRate: '0s,1', instanceCache: { jitter: '0s' } }] }, { clock });
    const pass = () => reconcileObject(rt, { kind: 'pool', name: 'lazy' }, { reason: 'test' }, { log: silentLog });
    // Adopting the VMs writes (the lease taken); the next pass records what it saw, the one after is warm.
    expect(await pass()).toMatchObject({ status: 'done', wrote: true });
    clock.advance(61_000);
    expect(await pass()).toMatchObject({ status: 'done', wrote: true });
    clock.advance(61_000);
    expect(await pass()).toMatchObject({ status: 'done', wrote: false, decision: { decision: expect.any(String) } });

    const other = await rt.leases.acquire('pool/lazy', 'another-host', 600_000);
    expect(other.acquired).toBe(true);
    clock.advance(10_000);
    expect(await pass()).toMatchObject({ status: 'done', wrote: false });
    // Someone adds a VM: once the scale set is read again, the pass would adopt it, and it waits
    // for the other holder.
    scaleSet.addVm();
    clock.advance(121_000);
    expect(await pass()).toMatchObject({ status: 'busy', heldBy: 'another-host' });
    if (other.acquired) await rt.leases.release(other.lease);
    expect(await pass()).toMatchObject({ status: 'done', wrote: true });
  });

  it('a steady target in a new process takes the lease to write its history; while another holder has it, the history is left to that one', async () => {
    const world = await startTargetWorld((activator) => [webTarget(activator, { scaleToZero: { enabled: false } })]);
    try {
      world.kube.add(WEB, { replicas: 2 });
      const pass = (rt: Runtime) => reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'test' }, { log: silentLog });
      for (let i = 0; i < 3; i++) await pass(world.rt);
      expect(await pass(world.rt)).toMatchObject({ status: 'done', wrote: false });
      const historyRows = async () => (await world.rt.table('history').list('target/web')).length;
      const before = await historyRows();

      // Another process on the same storage: its history writer remembers nothing of the target yet.
      const second = await createRuntime({ config: world.rt.config, env: {}, configSeq: world.rt.configuration.seq });
      const other = await world.rt.leases.acquire('target/web', 'another-host', 600_000);
      expect(other.acquired).toBe(true);
      expect(await pass(second)).toMatchObject({ status: 'done', wrote: false });
      expect(await historyRows()).toBe(before);
      if (other.acquired) await world.rt.leases.release(other.lease);
      expect(await pass(second)).toMatchObject({ status: 'done', wrote: true });
      expect(await historyRows()).toBe(before + 1);
    } finally {
      await world.close();
    }
  });
});
