import { describe, expect, it } from 'vitest';
import { matchMachine } from '../../src/pool/machine-id.js';

const vm = (n: number, rg = 'rg-demo', vmss = 'vmss-workers') =>
  `azure:///subscriptions/0000/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/${vmss}/virtualMachines/${n}`;
const flex = 'azure:///subscriptions/0000/resourceGroups/rg-demo/providers/Microsoft.Compute/virtualMachines/flex_ab12';
const known = [{ id: vm(0), name: 'vmss-workers_0' }, { id: vm(1) }, { id: flex, name: 'flex_ab12' }];

describe('matchMachine: every way Drover prints a machine names it', () => {
  it.each([
    { form: 'the full provider id', input: vm(0), id: vm(0) },
    { form: 'the full id with the resource group in ARM case', input: vm(0, 'RG-Demo'), id: vm(0) },
    { form: 'the ARM resource id without azure://', input: vm(1).slice('azure://'.length), id: vm(1) },
    { form: 'the short id status prints', input: 'rg-demo/vmss-workers/0', id: vm(0) },
    { form: 'the short id in another case', input: 'RG-Demo/VMSS-Workers/1', id: vm(1) },
    { form: "ARM's VM name", input: 'vmss-workers_0', id: vm(0) },
    { form: 'the VM name of a row ARM no longer lists, read off its id', input: 'vmss-workers_1', id: vm(1) },
    { form: 'a Flexible VM by short id', input: 'rg-demo/flex_ab12', id: flex },
    { form: 'a Flexible VM by name', input: 'flex_ab12', id: flex },
    { form: 'an id with spaces around it', input: ' rg-demo/vmss-workers/0 ', id: vm(0) },
  ])('$form', ({ input, id }) => {
    expect(matchMachine(input, known)).toEqual({ kind: 'found', id });
  });

  it.each([
    { what: 'an instance nobody has', input: 'rg-demo/vmss-workers/7' },
    { what: 'a full id nobody has', input: vm(7) },
    { what: 'a name of another scale set', input: 'vmss-other_0' },
    { what: 'a bare instance number', input: '0' },
  ])('finds nothing for $what', ({ input }) => {
    expect(matchMachine(input, known)).toEqual({ kind: 'none' });
  });

  it('says when one name stands for two machines', () => {
    const twins = [{ id: vm(0) }, { id: vm(0, 'rg-other') }];
    expect(matchMachine('vmss-workers_0', twins)).toEqual({ kind: 'ambiguous', ids: [vm(0), vm(0, 'rg-other')] });
  });
});
