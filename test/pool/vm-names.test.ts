/** How decision texts name VMs (src/pool/vm-names.ts): one readable way, never the full azure:// id. */
import { describe, expect, it } from 'vitest';
import { vmName, vmNames } from '../../src/pool/vm-names.js';

const uniform = (n: number) => `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-workers/virtualMachines/${n}`;
const flexible = 'azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/flex_0a1b2c3d';

describe('vmName', () => {
  it.each([
    { name: 'the name ARM gave wins', vm: { id: uniform(2), name: 'vmss-workers_2' }, want: 'vmss-workers_2' },
    { name: 'a Uniform VM without a name: the name ARM gives such a VM, read off its id', vm: { id: uniform(7) }, want: 'vmss-workers_7' },
    { name: 'a Flexible VM without a name: its own name, from the id', vm: { id: flexible, name: '' }, want: 'flex_0a1b2c3d' },
    { name: 'an id of another shape is left whole (nothing better to say)', vm: { id: 'azure://odd' }, want: 'azure://odd' },
  ])('$name', ({ vm, want }) => {
    expect(vmName(vm)).toBe(want);
  });

  it('names a list of ids by the plan\'s names where it has them', () => {
    expect(vmNames([uniform(0), uniform(3)], [{ id: uniform(0), name: 'vmss-workers_0' }])).toBe('vmss-workers_0, vmss-workers_3');
  });
});
