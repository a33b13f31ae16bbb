// What a Pool target observes of its pool (src/scaler/read/pool-port.ts, observePool): the ready
// count the policy serves with, and the deallocated VMs a raise would start rather than create.
import { describe, expect, it } from 'vitest';
import type { CachedInstance } from '../../src/cache/instance.js';
import { observePool } from '../../src/scaler/read/pool-port.js';

const vm = (n: number, over: Partial<CachedInstance> = {}): CachedInstance => ({
  id: `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/${n}`,
  name: `ss_${n}`,
  powerState: 'PowerState/running',
  provisioningState: 'Succeeded',
  state: 'Running',
  errorInfo: null,
  ...over,
});

const deallocated = { powerState: 'PowerState/deallocated' };

describe('observePool', () => {
  it.each([
    { name: 'running VMs are ready; none to start', instances: [vm(0), vm(1)], want: { specReplicas: 2, ready: 2, startable: 0 } },
    { name: 'deallocated VMs (a warm buffer) are not ready, and a raise would start them', instances: [vm(0), vm(1, deallocated), vm(2, deallocated)], want: { specReplicas: 3, ready: 1, startable: 2 } },
    { name: 'a deallocated VM on its way out is neither', instances: [vm(0), vm(1, { ...deallocated, provisioningState: 'Deleting' }), vm(2, { ...deallocated, state: 'Deleting' })], want: { specReplicas: 1, ready: 1, startable: 0 } },
    { name: 'a VM being created is not ready and not startable', instances: [vm(0), vm(1, { state: 'Creating', powerState: 'PowerState/starting', provisioningState: 'Creating' })], want: { specReplicas: 2, ready: 1, startable: 0 } },
  ])('$name', ({ instances, want }) => {
    expect(observePool(instances, undefined, 10)).toEqual(want);
  });

  it('the wanted count a target wrote is the scale, whatever is listed', () => {
    expect(observePool([vm(0), vm(1, deallocated)], 4, 10)).toEqual({ specReplicas: 4, ready: 1, startable: 1 });
  });
});
