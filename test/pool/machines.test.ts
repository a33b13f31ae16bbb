import { describe, expect, it } from 'vitest';
import { inFlightCount, providerStatusOf, scaleSetMachines, IN_FLIGHT_PREFIX } from '../../src/pool/scale-set-machines.js';
import { decideProvisioning } from '../../src/pool/provisioning.js';
import { inventoryMachine } from '../../src/pool/machine.js';
import type { CachedInstance } from '../../src/cache/instance.js';

const vm = (n: number, over: Partial<CachedInstance> = {}): CachedInstance => ({ id: `azure:///vm/${n}`, name: `vm${n}`, powerState: 'PowerState/running', state: 'Running', errorInfo: null, ...over });
const row = (n: number) => inventoryMachine({ providerId: `azure:///vm/${n}`, providerStatus: 'Running', address: null, createdAt: 0, updatedAt: 0 });
const view = (over: Partial<Parameters<typeof scaleSetMachines>[0]>) => ({ capacity: 2, instanceLimit: 10, instances: [vm(1), vm(2)], noSlots: false, maxSlots: 5, ...over });

describe('a scale set as the provisioner sees it', () => {
  it('offers every listed VM as possibly used and the headroom as slots, capped by the chunk', () => {
    const machines = scaleSetMachines(view({}));
    expect(machines.filter((m) => m.availability === 'PossiblyUsed')).toHaveLength(2);
    expect(machines.filter((m) => m.availability === 'KnownUnused')).toHaveLength(5);
  });

  it('offers no slot when the capacity is unknown or creations are backed off', () => {
    expect(scaleSetMachines(view({ capacity: undefined })).some((m) => m.availability === 'KnownUnused')).toBe(false);
    expect(scaleSetMachines(view({ noSlots: true })).some((m) => m.availability === 'KnownUnused')).toBe(false);
  });

  it('never offers more slots than the instance limit leaves', () => {
    expect(scaleSetMachines(view({ capacity: 9, instanceLimit: 10 })).filter((m) => m.availability === 'KnownUnused')).toHaveLength(1);
  });

  it('counts VMs the capacity promises but ARM does not list yet, so a crashed raise is not raised again', () => {
    const v = view({ capacity: 6, instances: [vm(1), vm(2)] });
    expect(inFlightCount(v)).toBe(4);
    const machines = scaleSetMachines(v);
    expect(machines.filter((m) => m.id.startsWith(IN_FLIGHT_PREFIX))).toHaveLength(4);
    // With max 6 and two managed VMs, the four in flight fill the pool: nothing more is brought up.
    const d = decideProvisioning(machines, [row(1), row(2)], { maxCount: 6, chunkSize: 6 });
    expect(d.kind).toBe('atLimit');
  });

  it('excuses VMs being deleted or in error, and never adopts them', () => {
    const machines = scaleSetMachines(view({ capacity: 2, instances: [vm(1, { state: 'Deleting' }), vm(2, { state: 'Creating', errorInfo: { errorClass: 'Other', errorCode: 'x', errorMessage: 'y' } })], noSlots: true }));
    expect(machines.every((m) => m.failed && m.availability === 'KnownUsed')).toBe(true);
    expect(decideProvisioning(machines, [], { maxCount: 0, chunkSize: 5 }).kind).toBe('noCapacity');
  });

  it.each([
    { name: 'running', i: vm(1), want: 'Running' },
    { name: 'stopped', i: vm(1, { powerState: 'PowerState/stopped' }), want: 'Stopped' },
    { name: 'creating', i: vm(1, { state: 'Creating' }), want: 'Provisioning' },
    { name: 'deleting', i: vm(1, { state: 'Deleting' }), want: 'Missing' },
    { name: 'unknown', i: vm(1, { state: null }), want: 'Unknown' },
    { name: 'out of resources', i: vm(1, { state: 'Creating', errorInfo: { errorClass: 'OutOfResources', errorCode: 'c', errorMessage: 'm' } }), want: 'ProvisioningFailedPermanent' },
  ])('maps a $name instance to the inventory status $want', ({ i, want }) => {
    expect(providerStatusOf(i)).toBe(want);
  });
});
