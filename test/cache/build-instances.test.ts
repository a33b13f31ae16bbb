import { describe, expect, it } from 'vitest';
import type { VmRecord } from '../../src/azure/scale-set-api.js';
import { buildInstances } from '../../src/cache/build-instances.js';
import { flexVmId, uniformVmId } from './fixtures.js';

const FLAGS = { enableFastDeleteOnFailedProvisioning: false, enableDetailedCSEMessage: false };
const vm = (id: string, provisioningState: string | undefined, power = 'PowerState/running'): VmRecord => ({
  id,
  name: id.split('/').pop() ?? '',
  instanceId: id.split('/').pop(),
  provisioningState,
  instanceView: { statuses: [{ code: power }] },
});

describe('building the cached list from a VM listing', () => {
  it('keeps list order and gives provider ids with the resource group lower-cased', () => {
    const { instances, skipped } = buildInstances(
      [vm(uniformVmId(2, 'Test-ASG'), 'Succeeded'), vm(uniformVmId(0, 'Test-ASG'), 'Creating', 'PowerState/starting')],
      [],
      FLAGS,
    );
    expect(instances).toEqual([
      { id: `azure://${uniformVmId(2)}`, name: '2', state: 'Running', errorInfo: null, powerState: 'PowerState/running', provisioningState: 'Succeeded' },
      { id: `azure://${uniformVmId(0)}`, name: '0', state: 'Creating', errorInfo: null, powerState: 'PowerState/starting', provisioningState: 'Creating' },
    ]);
    expect(skipped).toEqual([]);
  });

  it('carries the zone, creation time and protection flags scale-in chooses by', () => {
    const record = { ...vm(uniformVmId(3), 'Succeeded'), zone: '2', timeCreated: 1_700_000_000_000, protectFromScaleIn: true, protectFromScaleSetActions: false };
    expect(buildInstances([record], [], FLAGS).instances[0]).toMatchObject({ zone: '2', timeCreated: 1_700_000_000_000, protectFromScaleIn: true });
    expect(buildInstances([record], [], FLAGS).instances[0]).not.toHaveProperty('protectFromScaleSetActions');
  });

  it('VMs without provisioning state and no previous entry have unknown state (upstream TestScaleSetNodes)', () => {
    for (const id of [uniformVmId(0), flexVmId(0)]) {
      expect(buildInstances([vm(id, undefined)], [], FLAGS).instances[0]).toMatchObject({ id: `azure://${id}`, state: null });
    }
  });

  it('skips a VM without id (being deleted) and a VM whose id has no resource group', () => {
    const { instances, skipped } = buildInstances(
      [vm('', 'Deleting'), vm('invalid-id', 'Succeeded'), vm(uniformVmId(1), 'Succeeded')],
      [],
      FLAGS,
    );
    expect(instances.map((i) => i.id)).toEqual([`azure://${uniformVmId(1)}`]);
    expect(skipped.map((s) => s.reason)).toEqual(['no resource id', 'resource id without resource group']);
  });

  it('an Updating VM keeps the Deleting state the previous list had', () => {
    const first = buildInstances([vm(uniformVmId(1), 'Deleting')], [], FLAGS).instances;
    const second = buildInstances([vm(uniformVmId(1), 'Updating')], first, FLAGS).instances;
    expect(second[0]?.state).toBe('Deleting');
  });
});
