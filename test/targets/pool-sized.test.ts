// A pool as a target (the form that replaced the retired VirtualMachineScaleSet kind): the same
// scaler writes the pool's wanted count, the pool carries it out through the ARM adapter and the
// simulator, on a manual clock. It goes to zero and back, and the wake is timed from the ask to
// the first healthy running VM the pool's pass saw.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { startActivatorSim, type ActivatorSim } from '../../sim/activator/server.js';
import { targetStatus } from '../../src/status/target-status.js';
import { armWorld, type ArmWorld } from '../support/arm.js';
import { pushThenReconcile } from '../support/push.js';

const clock = new ManualClock(Date.now());
let arm: ArmWorld;
let activator: ActivatorSim;
let rt: Runtime;

beforeAll(async () => {
  [arm, activator] = await Promise.all([armWorld({ clock, provisionDelayMs: 20_000, deleteDelayMs: 10_000 }), startActivatorSim()]);
  arm.sim.addScaleSet({ resourceGroup: 'rg-batch', name: 'vmss-batch', capacity: 3 });
  // Long-running operations are not waited on: the next pass reads what ARM did.
  const scaleSetApi = await createComputeScaleSetApi(arm.azure, { clock, lroWaitMs: 0 });
  rt = await arm.runtime(
    {
      pools: [
        {
          name: 'batch-pool',
          scaleSet: { resourceGroup: 'rg-batch', name: 'vmss-batch' },
          maxCount: 10,
          chunkSize: 10,
          reconcileRate: '0s,1',
          creationRate: '0s,1',
          deletionRate: '0s,1',
          instanceCache: { ttl: '0s' },
        },
      ],
      targets: [
        {
          name: 'batch',
          scaleTargetRef: { kind: 'Pool', name: 'batch-pool' },
          policy: 'knative',
          scaleToZero: { stableWindow: '30s', gracePeriod: '10s' },
          activator: { probeUrl: activator.probeUrl },
          load: { source: 'push', targetPerReplica: 1 },
        },
      ],
    },
    { clock, adapters: { scaleSetApi } },
  );
});
afterAll(async () => {
  await Promise.all([arm.sim.close(), activator.close()]);
  rmSync(arm.dir, { recursive: true, force: true });
});

describe('a target whose scaleTargetRef is a pool', () => {
  it('goes to zero VMs and back by instance-id deletes and raises, and times the wake', async () => {
    // Pushed load by second: idle first, then 3 from second 70, then 2 for good.
    const pushes = new Map<number, number>([[0, 0], [70, 3], [150, 2]]);
    const live = () => arm.sim.scaleSet('rg-batch', 'vmss-batch').vms().filter((v) => v.provisioningState !== 'Deleting').length;
    const counts: number[] = [live()];
    let wokeAfter: number | undefined;
    for (let second = 0; second <= 330; second += 5) {
      const load = pushes.get(second);
      const outcome = await (load !== undefined ? pushThenReconcile(rt, { kind: 'target', name: 'batch' }, load, { reason: 'tick' }, { log: silentLog }) : reconcileObject(rt, { kind: 'target', name: 'batch' }, { reason: 'tick' }, { log: silentLog }));
      expect(outcome.status).toBe('done');
      const pass = await reconcileObject(rt, { kind: 'pool', name: 'batch-pool' }, { reason: 'tick' }, { log: silentLog });
      expect(pass.status).toBe('done');
      if (live() !== counts.at(-1)) counts.push(live());
      const status = await targetStatus(rt, rt.config.targets[0]!);
      if (wokeAfter === undefined && status.lastActivation) wokeAfter = status.lastActivation.latencyMs;
      clock.advance(5_000);
    }

    // Adopted as it runs (3), then idle: down to zero, then back up for the load, ending at 2.
    expect(counts[0]).toBe(3);
    const zero = counts.indexOf(0);
    expect(zero).toBeGreaterThan(0);
    expect(counts.slice(zero + 1).some((c) => c > 0)).toBe(true);
    expect(counts.at(-1)).toBe(2);
    // Woken at second 70, running once the VMs provisioned (20 s), seen by a pass every 5 s.
    expect(wokeAfter).toBeGreaterThanOrEqual(20_000);
    expect(wokeAfter).toBeLessThanOrEqual(35_000);
  });
});
