/** Upstream tables shared by the pure tests and the tests through the simulator. */
import type { InstanceErrorInfo, InstanceStatus } from '../../src/cache/instance.js';

export const OUT_OF_RESOURCES: InstanceErrorInfo = {
  errorClass: 'OutOfResources',
  errorCode: 'provisioning-state-failed',
  errorMessage: 'Azure failed to provision a node for this node group',
};

const RUNNING: InstanceStatus = { state: 'Running', errorInfo: null };
const FAST_DELETED: InstanceStatus = { state: 'Creating', errorInfo: OUT_OF_RESOURCES };

/**
 * Upstream TestInstanceStatusFromVM / TestInstanceStatusFromProvisioningStateAndPowerState:
 * a VM in provisioning state Failed, one power state status.
 */
export const FAILED_VM_MATRIX = (
  [
    [false, 'starting', RUNNING],
    [false, 'running', RUNNING],
    [false, 'stopping', RUNNING],
    [false, 'stopped', RUNNING],
    [false, 'deallocated', RUNNING],
    [false, 'unknown', RUNNING],
    [true, 'starting', RUNNING],
    [true, 'running', RUNNING],
    [true, 'stopping', FAST_DELETED],
    [true, 'stopped', FAST_DELETED],
    [true, 'deallocated', FAST_DELETED],
    [true, 'unknown', FAST_DELETED],
  ] as const
).map(([fastDelete, power, want]) => ({
  name: `failed VM, ${power}, fast delete ${fastDelete ? 'on' : 'off'} → ${want.state}${want.errorInfo ? ' with out-of-resources error' : ''}`,
  fastDelete,
  powerState: `PowerState/${power}`,
  want,
}));

/**
 * Upstream TestScaleSetIncreaseSizeOnVMProvisioningFailed (fast delete off) and
 * ...WithFastDelete (on): VM[2] is Failed with this instance view.
 */
export const FAILED_AFTER_INCREASE = [
  {
    name: 'out of resources when no power state exists',
    vm: { statuses: [] },
    fastDeleteOff: RUNNING,
    fastDeleteOn: FAST_DELETED,
  },
  {
    name: 'out of resources when VM is stopped',
    vm: { statuses: [{ code: 'PowerState/stopped' }] },
    fastDeleteOff: RUNNING,
    fastDeleteOn: FAST_DELETED,
  },
  {
    name: 'out of resources when VM reports invalid power state',
    vm: { statuses: [{ code: 'PowerState/invalid' }] },
    fastDeleteOff: RUNNING,
    fastDeleteOn: FAST_DELETED,
  },
  {
    name: 'instance running when power state is running',
    vm: { statuses: [{ code: 'PowerState/running' }] },
    fastDeleteOff: RUNNING,
    fastDeleteOn: RUNNING,
  },
  {
    name: 'instance running if instance view cannot be retrieved',
    vm: { instanceView: false },
    fastDeleteOff: RUNNING,
    fastDeleteOn: RUNNING,
  },
] as const;

export const SUBSCRIPTION = '/subscriptions/test-subscription-id';
export const uniformVmId = (i: number | string, rg = 'test-asg') =>
  `${SUBSCRIPTION}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/agents/virtualMachines/${i}`;
export const flexVmId = (i: number | string, rg = 'test-asg') =>
  `${SUBSCRIPTION}/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachines/${i}`;
