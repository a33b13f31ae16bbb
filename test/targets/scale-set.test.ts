// A scale set as a target: the same scaler on sku.capacity through the ARM adapter and the
// simulator, on a manual clock. It goes to zero and back, and however the load jumps around,
// no sliding minute sees more than four capacity writes: changes wait and coalesce.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { createComputeScaleSetApi } from '../../src/azure/compute-adapter.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { startActivatorSim, type ActivatorSim } from '../../sim/activator/server.js';
import { targetStatus } from '../../src/status/target-status.js';
import { armWorld, type ArmWorld } from '../support/arm.js';

const clock = new ManualClock(Date.now());
let arm: ArmWorld;
let activator: ActivatorSim;
let rt: Runtime;

beforeAll(async () => {
  [arm, activator] = await Promise.all([armWorld({ clock, provisionDelayMs: 20_000, deleteDelayMs: 10_000 }), startActivatorSim()]);
  arm.sim.addScaleSet({ resourceGroup: 'rg-batch', name: 'vmss-batch', capacity: 3 });
  // Long-running operations are not waited on: the next reconcile reads what ARM did.
  const scaleSetApi = await createComputeScaleSetApi(arm.azure, { clock, lroWaitMs: 0 });
  rt = await arm.runtime(
    {
      targets: [
        {
          name: 'batch',
          scaleTargetRef: { kind: 'VirtualMachineScaleSet', resourceGroup: 'rg-batch', name: 'vmss-batch' },
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
});

describe('a scale set target', () => {
  it('goes to zero capacity and back, with no more than 4 capacity writes in any minute', async () => {
    const start = clock.now();
    // Pushed load by second: idle first, then a burst that jumps every 5 s, then 2 for good.
    const pushes = new Map<number, number>([[0, 0], [70, 3]]);
    [5, 1, 6, 2, 7, 1, 4, 8, 3, 6].forEach((load, i) => pushes.set(90 + 5 * i, load));
    pushes.set(150, 2);

    const writes: number[] = [];
    const capacities: number[] = [];
    let wokeAfter: number | undefined;
    for (let second = 0; second <= 330; second += 5) {
      const before = arm.sim.counts.updateScaleSet;
      const load = pushes.get(second);
      const outcome = await reconcileObject(rt, { kind: 'target', name: 'batch' }, { reason: 'tick', ...(load !== undefined ? { load } : {}) }, { log: silentLog });
      expect(outcome.status).toBe('done');
      for (let i = before; i < arm.sim.counts.updateScaleSet; i++) writes.push(clock.now());
      const capacity = arm.sim.scaleSet('rg-batch', 'vmss-batch').capacity;
      if (capacity !== capacities.at(-1)) capacities.push(capacity);
      const status = await targetStatus(rt, rt.config.targets[0]!);
      if (wokeAfter === undefined && status.lastActivation) wokeAfter = status.lastActivation.latencyMs;
      clock.advance(5_000);
    }

    // The first reconcile adopts the scale set as it runs; the idle load then takes it 3 → 1.
    expect(capacities.slice(0, 2)).toEqual([3, 1]);
    expect(capacities).toContain(0);
    expect(capacities.indexOf(0)).toBeLessThan(capacities.findIndex((c, i) => i > capacities.indexOf(0) && c > 0));
    expect(capacities.at(-1)).toBe(2);
    for (const at of writes) expect(writes.filter((t) => t >= at && t < at + 60_000).length).toBeLessThanOrEqual(4);
    // The burst asked for more changes than the budget allows: some waited and coalesced.
    const asked = await rt.decisions.recent(clock.now(), 200);
    expect(asked.some((d) => d.decision === 'capacity write deferred')).toBe(true);
    // Woken at second 70, running once the VMs provisioned (20 s), seen by a reconcile every 5 s.
    expect(wokeAfter).toBeGreaterThanOrEqual(20_000);
    expect(wokeAfter).toBeLessThanOrEqual(30_000);
    expect(writes.length).toBeGreaterThan(4);
    expect(clock.now() - start).toBeGreaterThan(300_000);
  });
});
