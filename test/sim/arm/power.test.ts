/**
 * Start, deallocate and Spot eviction in the ARM simulator, driven through the real compute
 * adapter (`setPower`): Uniform by one batch call with instance ids, Flexible one call per VM;
 * each with its own delay; an empty id list makes no call (ARM would take it as every VM).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import type { SimHarness } from './harness.js';
import { startSimHarness } from './harness.js';

const clock = new ManualClock();
let h: SimHarness;
let rg: string;
let seq = 0;

beforeAll(async () => {
  // Distinct delays, so a test can tell which one a change waited for.
  h = await startSimHarness({ clock, provisionDelayMs: 60_000, deleteDelayMs: 60_000, startDelayMs: 7_000, deallocateDelayMs: 3_000 }, { clock, lroWaitMs: 100, lroPollIntervalMs: 10 });
});
afterAll(async () => {
  await h.stop();
});
beforeEach(() => {
  rg = `rg-power-${++seq}`;
  h.sim.resetCounts();
});

const power = (name: string) => (id: string) => h.sim.scaleSet(rg, name).vms().find((v) => v.instanceId === id || v.name === id)?.powerState;

describe('deallocate and start', () => {
  it('Uniform: one batch call by instance id; Updating with a transitional power state, then deallocated after its own delay, and started after its own', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 3 });
    const of = power('uni');
    expect(await h.api.setPower(rg, 'uni', 'Uniform', 'deallocate', ['0', '2'])).toMatchObject({ done: false });
    expect(h.sim.counts.deallocateVms).toBe(1);
    expect(control.vms().map((v) => [v.provisioningState, v.powerState])).toEqual([
      ['Updating', 'PowerState/deallocating'],
      ['Succeeded', 'PowerState/running'],
      ['Updating', 'PowerState/deallocating'],
    ]);
    clock.advance(2_999);
    expect(of('0')).toBe('PowerState/deallocating');
    clock.advance(1);
    expect([of('0'), of('1'), of('2')]).toEqual(['PowerState/deallocated', 'PowerState/running', 'PowerState/deallocated']);
    // A deallocated VM keeps its place in the capacity.
    expect(control.capacity).toBe(3);

    expect(await h.api.setPower(rg, 'uni', 'Uniform', 'start', ['2'])).toMatchObject({ done: false });
    expect(h.sim.counts.startVms).toBe(1);
    expect(of('2')).toBe('PowerState/starting');
    clock.advance(3_000);
    expect(of('2')).toBe('PowerState/starting');
    clock.advance(4_000);
    expect([of('0'), of('2')]).toEqual(['PowerState/deallocated', 'PowerState/running']);
    expect(control.vms().every((v) => v.provisioningState === 'Succeeded')).toBe(true);
  });

  it('an empty id list makes no call at all', async () => {
    h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
    expect(await h.api.setPower(rg, 'uni', 'Uniform', 'deallocate', [])).toEqual({ done: true });
    expect(h.sim.counts.requests).toBe(0);
    expect(power('uni')('0')).toBe('PowerState/running');
  });

  it('Flexible: refused as a batch, done one VM at a time by name', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'flex', orchestrationMode: 'Flexible', capacity: 3 });
    const [a, , c] = control.vms();
    const refused = await h.api.setPower(rg, 'flex', 'Uniform', 'deallocate', ['0']).catch((e: unknown) => e);
    expect(String(refused)).toContain('not supported for Flexible orchestration mode');
    expect(await h.api.setPower(rg, 'flex', 'Flexible', 'deallocate', [a!.name, c!.name])).toMatchObject({ done: false });
    expect(h.sim.counts.deallocateVms).toBe(3);
    clock.advance(3_000);
    expect(control.vms().map((v) => v.powerState)).toEqual(['PowerState/deallocated', 'PowerState/running', 'PowerState/deallocated']);
    expect(await h.api.setPower(rg, 'flex', 'Flexible', 'start', [c!.name])).toMatchObject({ done: false });
    clock.advance(7_000);
    expect(control.vms().map((v) => v.powerState)).toEqual(['PowerState/deallocated', 'PowerState/running', 'PowerState/running']);
  });

  it('an unknown instance is refused and changes nothing', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'uni', capacity: 2 });
    const refused = await h.api.setPower(rg, 'uni', 'Uniform', 'deallocate', ['0', '9']).catch((e: unknown) => e);
    expect(String(refused)).toContain('9');
    expect(control.vms().map((v) => v.powerState)).toEqual(['PowerState/running', 'PowerState/running']);
  });
});

describe('Spot eviction', () => {
  it('evictionPolicy Deallocate: the VM is deallocated at once and keeps its place; the scale set reports priority Spot', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'spot', capacity: 2, priority: 'Spot' });
    control.evict('1');
    expect(power('spot')('1')).toBe('PowerState/deallocated');
    expect(control.capacity).toBe(2);
    expect((await h.api.getScaleSet(rg, 'spot')).priority).toBe('Spot');
  });

  it('evictionPolicy Delete: the VM goes Deleting and the capacity drops', () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'spot-del', capacity: 2, priority: 'Spot', evictionPolicy: 'Delete' });
    control.evict('0');
    expect(control.vms().map((v) => v.provisioningState)).toEqual(['Deleting', 'Succeeded']);
    expect(control.capacity).toBe(1);
    clock.advance(60_000);
    expect(control.vms().map((v) => v.instanceId)).toEqual(['1']);
  });

  it('a regular scale set has nothing to evict', async () => {
    const control = h.sim.addScaleSet({ resourceGroup: rg, name: 'regular', capacity: 1 });
    expect(() => control.evict('0')).toThrow(/no Spot VMs/);
    expect((await h.api.getScaleSet(rg, 'regular')).priority).toBe('Regular');
  });
});
