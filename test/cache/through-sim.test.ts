/**
 * The upstream tables again, this time with the VMs set up in the ARM simulator, listed by the
 * real compute adapter (the production SDK client over HTTPS) and mapped by the cache code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrchestrationMode } from '../../src/azure/scale-set-api.js';
import { buildInstances } from '../../src/cache/build-instances.js';
import type { CachedInstance } from '../../src/cache/instance.js';
import type { StatusFlags } from '../../src/cache/instance-status.js';
import { listingModeFor } from '../../src/cache/orchestration.js';
import { isExpired, lastRefreshAfterThrottle } from '../../src/cache/refresh-policy.js';
import { throttleOf } from '../../src/azure/throttle.js';
import { ManualClock } from '../../src/clock.js';
import type { SimVmSpec } from '../../sim/arm/index.js';
import type { SimHarness } from '../sim/arm/harness.js';
import { startSimHarness } from '../sim/arm/harness.js';
import { FAILED_AFTER_INCREASE, FAILED_VM_MATRIX } from './fixtures.js';

const RG = 'test-asg';
const clock = new ManualClock();
let h: SimHarness;

beforeAll(async () => {
  h = await startSimHarness({ clock, provisionDelayMs: 60_000, deleteDelayMs: 60_000 }, { clock, lroWaitMs: 50 });
});
afterAll(async () => {
  await h.stop();
});

const flags = (overrides: Partial<StatusFlags> = {}): StatusFlags => ({
  enableFastDeleteOnFailedProvisioning: false,
  enableDetailedCSEMessage: false,
  ...overrides,
});

async function cached(
  name: string,
  mode: OrchestrationMode,
  statusFlags: StatusFlags,
  previous: readonly CachedInstance[] = [],
  resourceGroup = RG,
): Promise<CachedInstance[]> {
  const { vms } = await h.api.listVms(resourceGroup, name, mode);
  const { instances, skipped } = buildInstances(vms, previous, statusFlags);
  expect(skipped).toEqual([]);
  return instances;
}

describe.each(['Uniform', 'Flexible'] as const)('the failed-VM matrix through the SDK (%s)', (mode) => {
  const name = `matrix-${mode}`;
  const powers = [...new Set(FAILED_VM_MATRIX.map((row) => row.powerState))];

  beforeAll(() => {
    h.sim.addScaleSet({
      resourceGroup: RG,
      name,
      orchestrationMode: mode,
      vms: powers.map((power) => ({ provisioningState: 'Failed', statuses: [{ code: power }] })),
    });
  });

  it.each(FAILED_VM_MATRIX)('$name', async ({ fastDelete, powerState, want }) => {
    const instances = await cached(name, mode, flags({ enableFastDeleteOnFailedProvisioning: fastDelete }));
    const instance = instances[powers.indexOf(powerState)];
    expect({ state: instance?.state, errorInfo: instance?.errorInfo }).toEqual(want);
    expect(instance?.powerState).toBe(powerState);
  });
});

describe('a failed VM after a size increase, through the SDK (upstream IncreaseSize then Nodes)', () => {
  it.each(FAILED_AFTER_INCREASE)('$name', async ({ name, vm, fastDeleteOff, fastDeleteOn }) => {
    const scaleSet = `increase-${FAILED_AFTER_INCREASE.findIndex((c) => c.name === name)}`;
    const failed: SimVmSpec = { provisioningState: 'Failed', ...vm, statuses: 'statuses' in vm ? [...vm.statuses] : undefined };
    h.sim.addScaleSet({ resourceGroup: RG, name: scaleSet, vms: [{ provisioningState: null }, { provisioningState: null }, failed] });

    const before = await h.api.getScaleSet(RG, scaleSet);
    expect(before.capacity).toBe(3);
    expect(await h.api.setCapacity(RG, scaleSet, 4, before.etag!)).toMatchObject({ done: false });

    for (const [fastDelete, want] of [[false, fastDeleteOff], [true, fastDeleteOn]] as const) {
      const nodes = await cached(scaleSet, 'Uniform', flags({ enableFastDeleteOnFailedProvisioning: fastDelete }));
      // Upstream mocks the listing, so it still sees 3; the simulator shows the new VM as well.
      expect(nodes.map((n) => n.state)).toEqual([null, null, want.state, 'Creating']);
      expect(nodes[2]?.errorInfo).toEqual(want.errorInfo);
    }
  });
});

describe('custom script extension errors through the SDK', () => {
  beforeAll(() => {
    h.sim.addScaleSet({
      resourceGroup: RG,
      name: 'cse',
      vms: [{ extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error', message: 'Error Message Test' }] }] }, {}],
    });
  });

  it.each([
    {
      name: 'detailed CSE messages on: the VM is Creating with the extension error',
      on: true,
      want: { state: 'Creating', errorInfo: { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'cse_0: [Error Message Test]' } },
    },
    { name: 'detailed CSE messages off: the VM is Running', on: false, want: { state: 'Running', errorInfo: null } },
  ])('$name', async ({ on, want }) => {
    const [failing, healthy] = await cached('cse', 'Uniform', flags({ enableDetailedCSEMessage: on }));
    expect({ state: failing?.state, errorInfo: failing?.errorInfo }).toEqual(want);
    expect(healthy?.state).toBe('Running');
  });
});

describe('orchestration mode as ARM reports it', () => {
  beforeAll(() => {
    h.sim.addScaleSet({ resourceGroup: RG, name: 'flag-flex', orchestrationMode: 'Flexible', capacity: 2 });
    h.sim.addScaleSet({ resourceGroup: RG, name: 'no-mode', orchestrationMode: null, capacity: 1 });
  });

  it('Flexible with enableVmssFlexNodes off is the upstream error', async () => {
    const { orchestrationMode } = await h.api.getScaleSet(RG, 'flag-flex');
    const result = listingModeFor('flag-flex', orchestrationMode, false);
    expect(result.ok ? null : result.error.message).toBe(
      `vmss - "flag-flex" with Flexible orchestration detected but 'enableVmssFlexNodes' feature flag is turned off`,
    );
  });

  it('Flexible with enableVmssFlexNodes on is listed', async () => {
    const result = listingModeFor('flag-flex', (await h.api.getScaleSet(RG, 'flag-flex')).orchestrationMode, true);
    expect(result).toEqual({ ok: true, mode: 'Flexible' });
    expect(await cached('flag-flex', 'Flexible', flags())).toHaveLength(2);
  });

  it('no mode is "failed to determine orchestration mode"', async () => {
    const result = listingModeFor('no-mode', (await h.api.getScaleSet(RG, 'no-mode')).orchestrationMode, true);
    expect(result.ok ? null : result.error.message).toBe('failed to determine orchestration mode for vmss "no-mode"');
  });
});

describe('upstream TestScaleSetNodes: VMs without provisioning state', () => {
  it.each(['Uniform', 'Flexible'] as const)('%s: three instances in list order, state unknown', async (mode) => {
    const control = h.sim.addScaleSet({
      resourceGroup: RG,
      name: `nodes-${mode}`,
      orchestrationMode: mode,
      vms: [{ provisioningState: null }, { provisioningState: null }, { provisioningState: null }],
    });
    const instances = await cached(`nodes-${mode}`, mode, flags());
    expect(instances.map((i) => [i.id, i.state])).toEqual(control.vms().map((vm) => [`azure://${vm.id}`, null]));
  });
});

describe('Updating keeps a cached Deleting, through the SDK', () => {
  it.each(['Uniform', 'Flexible'] as const)('%s', async (mode) => {
    const name = `updating-${mode}`;
    const control = h.sim.addScaleSet({ resourceGroup: RG, name, orchestrationMode: mode, capacity: 2 });
    const target = control.vms()[1]!;
    expect(await h.api.deleteInstances(RG, name, [mode === 'Uniform' ? target.instanceId : target.name])).toMatchObject({ done: false });
    const first = await cached(name, mode, flags());
    expect(first.map((i) => i.state)).toEqual(['Running', 'Deleting']);

    control.updateVm(target.instanceId, { provisioningState: 'Updating', powerState: 'PowerState/running' });
    const second = await cached(name, mode, flags({ enableFastDeleteOnFailedProvisioning: true }), first);
    expect(second.map((i) => i.state)).toEqual(['Running', 'Deleting']);
    expect(await cached(name, mode, flags(), [])).toMatchObject([{ state: 'Running' }, { state: null }]);
  });
});

describe('resource group normalisation, through the SDK', () => {
  it.each(['Uniform', 'Flexible'] as const)('%s: only the resource group is lower-cased', async (mode) => {
    const control = h.sim.addScaleSet({ resourceGroup: 'RG-Mixed-Case', name: `VMSS-Upper-${mode}`, orchestrationMode: mode, capacity: 1 });
    const [instance] = await cached(`VMSS-Upper-${mode}`, mode, flags(), [], 'rg-mixed-case');
    const armId = control.vms()[0]!.id;
    expect(armId).toContain('/resourceGroups/RG-Mixed-Case/');
    expect(instance?.id).toBe(`azure://${armId.replace('RG-Mixed-Case', 'rg-mixed-case')}`);
    expect(instance?.id).toContain(`VMSS-Upper-${mode}`);
  });
});

describe('throttling through the SDK', () => {
  const PERIOD = 5 * 60_000;

  it.each([
    { name: 'Retry-After in seconds beyond the period defers the next refresh to it', retryAfter: () => '600', wantMs: 600_000 },
    { name: 'Retry-After as an HTTP date is counted from now', retryAfter: () => new Date(clock.now() + 420_000).toUTCString(), wantMs: 420_000 },
    { name: 'no Retry-After: the next refresh is one period away', retryAfter: () => undefined, wantMs: 0 },
  ])('$name', async ({ retryAfter, wantMs }) => {
    h.sim.addScaleSet({ resourceGroup: RG, name: `throttled-${wantMs}`, capacity: 1 });
    h.sim.throttleNext(1, { retryAfter: retryAfter(), operations: ['listVms'] });
    const error = await h.api.listVms(RG, `throttled-${wantMs}`, 'Uniform').then(
      () => undefined,
      (e: unknown) => e,
    );
    const throttle = throttleOf(error, clock.now());
    expect(throttle).toEqual({ throttled: true, retryAfterMs: wantMs });

    const meta = { lastRefresh: clock.now() - PERIOD, periodMs: PERIOD, jitterSec: 0 };
    const lastRefresh = lastRefreshAfterThrottle(meta, clock.now(), throttle.retryAfterMs, () => 0);
    const due = clock.now() + Math.max(wantMs, PERIOD);
    expect(isExpired({ ...meta, lastRefresh }, due - 1)).toBe(false);
    expect(isExpired({ ...meta, lastRefresh }, due)).toBe(true);
  });
});
