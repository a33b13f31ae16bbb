// ARM's VM JSON → the port's records (src/azure/vm-listing.ts), read with JSON.parse instead of
// the SDK's models: the fields Drover uses, and nothing trusted that is absent, null or mistyped.
import { describe, expect, it } from 'vitest';
import { vmRecordOf } from '../../src/azure/vm-listing.js';

const UNIFORM_VM = {
  id: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3',
  name: 'pool_3',
  instanceId: '3',
  zones: ['2'],
  properties: {
    provisioningState: 'Succeeded',
    timeCreated: '2026-12-01T10:00:00.5Z',
    protectionPolicy: { protectFromScaleIn: true, protectFromScaleSetActions: false },
    latestModelApplied: true,
    instanceView: {
      statuses: [
        { code: 'ProvisioningState/succeeded', level: 'Info', displayStatus: 'Provisioning succeeded' },
        { code: 'PowerState/running', level: 'Info' },
      ],
      extensions: [{ name: 'cse', statuses: [{ code: 'ProvisioningState/failed/1', level: 'Error', message: 'exit 1' }] }],
    },
  },
};

describe('a VM as ARM lists it', () => {
  it('Uniform: id, name, instance id, zone, creation time, protection and the instance view', () => {
    expect(vmRecordOf(UNIFORM_VM, 'Uniform')).toEqual({
      id: UNIFORM_VM.id,
      name: 'pool_3',
      instanceId: '3',
      zone: '2',
      timeCreated: Date.UTC(2026, 11, 1, 10, 0, 0, 500),
      provisioningState: 'Succeeded',
      protectFromScaleIn: true,
      protectFromScaleSetActions: false,
      instanceView: {
        statuses: [
          { code: 'ProvisioningState/succeeded', level: 'Info', message: undefined },
          { code: 'PowerState/running', level: 'Info', message: undefined },
        ],
        extensions: [{ name: 'cse', statuses: [{ code: 'ProvisioningState/failed/1', level: 'Error', message: 'exit 1' }] }],
      },
    });
  });

  it('Flexible: named by VM name, never protected (the policy is a Uniform setting)', () => {
    const record = vmRecordOf({ ...UNIFORM_VM, instanceId: undefined, name: 'pool_a1b2' }, 'Flexible');
    expect(record).toMatchObject({ name: 'pool_a1b2', instanceId: 'pool_a1b2', protectFromScaleIn: false, protectFromScaleSetActions: false });
  });

  it.each([
    { name: 'no properties at all', raw: { id: 'x', name: 'n' } },
    { name: 'properties null', raw: { id: 'x', name: 'n', properties: null } },
    { name: 'mistyped fields', raw: { id: 7, name: ['n'], instanceId: 3, zones: 'one', properties: { provisioningState: 1, timeCreated: 'not a time', protectionPolicy: 'yes', instanceView: 'none' } } },
    { name: 'statuses not objects', raw: { properties: { instanceView: { statuses: [null, 'x'], extensions: [null] } } } },
  ])('$name: nothing trusted that is not what ARM documents', ({ raw }) => {
    const record = vmRecordOf(raw as Parameters<typeof vmRecordOf>[0], 'Uniform');
    expect(typeof record.id).toBe('string');
    expect(typeof record.name).toBe('string');
    expect(record.instanceId === undefined || typeof record.instanceId === 'string').toBe(true);
    expect(record.provisioningState).toBeUndefined();
    expect(record.timeCreated).toBeUndefined();
    expect(record.zone).toBeUndefined();
    expect(record.protectFromScaleIn).toBe(false);
    for (const s of record.instanceView?.statuses ?? []) expect(s).toEqual({ code: undefined, level: undefined, message: undefined });
  });
});
