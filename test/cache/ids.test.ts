import { describe, expect, it } from 'vitest';
import {
  instanceIdFromProviderId,
  isInvalidResourceIdError,
  lowerCaseResourceGroup,
  providerIdFromResourceId,
  tryProviderIdFromResourceId,
} from '../../src/cache/ids.js';

const SUB = '/subscriptions/00000000-0000-0000-0000-000000000000';
const VM = `${SUB}/resourceGroups/myResourceGroupName/providers/Microsoft.Compute/virtualMachines/k8s-agent-AAAAAAAA-0`;
const VMSS_VM = `${SUB}/resourceGroups/myResourceGroupName/providers/Microsoft.Compute/virtualMachineScaleSets/myScaleSetName/virtualMachines/156`;

describe('lowerCaseResourceGroup (upstream TestConvertResourceGroupNameToLower)', () => {
  it.each([
    { name: 'an empty id is an error', id: '' },
    { name: 'an id without path is an error', id: 'invalid-id' },
    { name: 'a prefixed id without path is an error', id: 'azure://invalid-id' },
  ])('$name', ({ id }) => {
    expect(() => lowerCaseResourceGroup(id)).toThrow(`resource id "${id}"`);
    expect(tryProviderIdFromResourceId(id)).toBeUndefined();
  });

  it.each([
    {
      name: 'a prefixed VM id gets only its resource group lower-cased',
      id: `azure://${VM}`,
      want: `azure://${VM.replace('myResourceGroupName', 'myresourcegroupname')}`,
    },
    {
      name: 'a bare VM id gets only its resource group lower-cased',
      id: VM,
      want: VM.replace('myResourceGroupName', 'myresourcegroupname'),
    },
    {
      name: 'a prefixed scale set VM id keeps the scale set name as it is',
      id: `azure://${VMSS_VM}`,
      want: `azure://${VMSS_VM.replace('myResourceGroupName', 'myresourcegroupname')}`,
    },
    {
      name: 'a bare scale set VM id keeps the scale set name as it is',
      id: VMSS_VM,
      want: VMSS_VM.replace('myResourceGroupName', 'myresourcegroupname'),
    },
  ])('$name', ({ id, want }) => {
    expect(lowerCaseResourceGroup(id)).toBe(want);
  });

  it('replaces only the first occurrence of the group text, as upstream does', () => {
    const id = `/subscriptions/RG/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/RG`;
    expect(lowerCaseResourceGroup(id)).toBe(
      '/subscriptions/rg/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/RG',
    );
  });

  it('does not read $ in a group name as a replacement pattern', () => {
    const id = `${SUB}/resourceGroups/Rg$&x/providers/Microsoft.Compute/virtualMachines/vm`;
    expect(lowerCaseResourceGroup(id)).toBe(`${SUB}/resourceGroups/rg$&x/providers/Microsoft.Compute/virtualMachines/vm`);
  });

  it('names the bad id in a typed error', () => {
    let caught: unknown;
    try {
      lowerCaseResourceGroup('invalid-id');
    } catch (error) {
      caught = error;
    }
    expect(isInvalidResourceIdError(caught)).toBe(true);
  });
});

describe('provider id helpers', () => {
  it('builds a provider id from a resource id', () => {
    expect(providerIdFromResourceId(VMSS_VM)).toBe(
      `azure://${VMSS_VM.replace('myResourceGroupName', 'myresourcegroupname')}`,
    );
  });

  it.each([
    { name: 'a Uniform provider id gives its instance id', id: `azure://${VMSS_VM}`, want: '156' },
    { name: 'a Flexible provider id gives its VM name', id: `azure://${VM}`, want: 'k8s-agent-AAAAAAAA-0' },
    { name: 'a bare resource id works too', id: VMSS_VM, want: '156' },
  ])('$name', ({ id, want }) => {
    expect(instanceIdFromProviderId(id)).toBe(want);
  });

  it('refuses an id that is no resource id', () => {
    expect(() => instanceIdFromProviderId('azure://invalid-id')).toThrow('invalid-id');
  });
});
