/**
 * Every ARM call the compute adapter makes, with what Azure checks for it and where. This is the
 * one list the custom roles in infra/roles.json are held to (test/infra/least-privilege.test.ts):
 * a call added to compute-adapter.ts without a row here, or an action in a role that no row
 * needs, fails that test.
 *
 * Scopes, narrowest first:
 *   - `scale set`: the scale set resource itself (Drover's role is assigned on each configured one);
 *   - `resource group`: the scale set's group, for what ARM checks there: polling a long-running
 *     operation (documented as needing group-level rights) and the VMs of a Flexible scale set,
 *     which are the group's resources, not the scale set's children;
 *   - `linked resource`: each resource the scale set model references (subnet, load balancer,
 *     application gateway, identity, image), which ARM checks when a scale-out creates instances.
 * Sources and what is unverified: /work/shared/reference/azure-rbac-facts.md, summarised per
 * action in infra/roles.json.
 */
import type { OrchestrationMode } from './scale-set-api.js';

export type ArmScope = 'scale set' | 'resource group' | 'linked resource';

export interface ArmNeed {
  action: string;
  scope: ArmScope;
  /** Only for scale sets in this mode; absent: both. */
  mode?: OrchestrationMode;
}

export interface ArmOperation {
  /** The SDK call as compute-adapter.ts writes it (`client.<group>.<method>`), or the function that sends a request of its own (`list…Via`). */
  call: string;
  /** What goes over the wire. */
  request: string;
  needs: readonly ArmNeed[];
}

const COMPUTE = 'Microsoft.Compute';
const NETWORK = 'Microsoft.Network';

/** Polling the Azure-AsyncOperation URL of an update or delete. */
const POLL: ArmNeed = { action: `${COMPUTE}/locations/operations/read`, scope: 'resource group' };

/**
 * What ARM may check on the resources a scale-out references. For a Uniform scale set whose
 * PATCH carries only sku.capacity none is expected; Flexible scale-out creates VMs and NICs from
 * the model, so each reference may be checked against the caller.
 */
const LINKED: readonly ArmNeed[] = [
  `${NETWORK}/virtualNetworks/subnets/join/action`,
  `${NETWORK}/loadBalancers/backendAddressPools/join/action`,
  `${NETWORK}/loadBalancers/inboundNatPools/join/action`,
  `${NETWORK}/loadBalancers/probes/join/action`,
  `${NETWORK}/applicationGateways/backendAddressPools/join/action`,
  `${NETWORK}/networkSecurityGroups/join/action`,
  `${NETWORK}/applicationSecurityGroups/joinIpConfiguration/action`,
  `${NETWORK}/publicIPPrefixes/join/action`,
  'Microsoft.ManagedIdentity/userAssignedIdentities/assign/action',
  `${COMPUTE}/galleries/images/versions/read`,
  `${COMPUTE}/images/read`,
  `${COMPUTE}/diskEncryptionSets/read`,
].map((action) => ({ action, scope: 'linked resource' }));

/**
 * Requests the adapter builds and sends through its client's pipeline itself rather than an SDK
 * method: the VM listings (vm-listing.ts), and the resource group's autoscale settings
 * (autoscale-settings.ts), read before a pool writes so that an enabled Azure Monitor autoscale
 * setting on its scale set holds it.
 */
const VIA_PIPELINE: readonly ArmOperation[] = [
  {
    call: 'listVmsVia',
    request: 'Uniform: GET …/virtualMachineScaleSets/{name}/virtualMachines?$expand=instanceView',
    needs: [
      { action: `${COMPUTE}/virtualMachineScaleSets/virtualMachines/read`, scope: 'scale set', mode: 'Uniform' },
      { action: `${COMPUTE}/virtualMachineScaleSets/virtualMachines/instanceView/read`, scope: 'scale set', mode: 'Uniform' },
    ],
  },
  {
    call: 'listVmsVia',
    request: "Flexible: GET …/resourceGroups/{group}/providers/Microsoft.Compute/virtualMachines?$filter='virtualMachineScaleSet/id' eq '…'&$expand=instanceView",
    needs: [
      { action: `${COMPUTE}/virtualMachines/read`, scope: 'resource group', mode: 'Flexible' },
      { action: `${COMPUTE}/virtualMachines/instanceView/read`, scope: 'resource group', mode: 'Flexible' },
    ],
  },
  {
    call: 'listAutoscaleSettingsVia',
    request: 'GET …/resourcegroups/{group}/providers/Microsoft.Insights/autoscalesettings?api-version=2022-10-01',
    needs: [{ action: 'Microsoft.Insights/autoscalesettings/read', scope: 'resource group' }],
  },
];

export const ARM_OPERATIONS: readonly ArmOperation[] = [
  ...VIA_PIPELINE,
  {
    call: 'client.virtualMachineScaleSets.get',
    request: 'GET …/virtualMachineScaleSets/{name}',
    needs: [{ action: `${COMPUTE}/virtualMachineScaleSets/read`, scope: 'scale set' }],
  },
  {
    call: 'client.virtualMachineScaleSets.update',
    request: 'PATCH …/virtualMachineScaleSets/{name} {"sku":{"capacity":N}} If-Match',
    needs: [
      { action: `${COMPUTE}/virtualMachineScaleSets/write`, scope: 'scale set' },
      POLL,
      // Flexible scale-out creates ordinary VMs, NICs and disks in the group.
      { action: `${COMPUTE}/virtualMachines/write`, scope: 'resource group', mode: 'Flexible' },
      { action: `${NETWORK}/networkInterfaces/read`, scope: 'resource group', mode: 'Flexible' },
      { action: `${NETWORK}/networkInterfaces/write`, scope: 'resource group', mode: 'Flexible' },
      { action: `${NETWORK}/networkInterfaces/join/action`, scope: 'resource group', mode: 'Flexible' },
      { action: `${COMPUTE}/disks/read`, scope: 'resource group', mode: 'Flexible' },
      { action: `${COMPUTE}/disks/write`, scope: 'resource group', mode: 'Flexible' },
      ...LINKED,
    ],
  },
  {
    call: 'client.virtualMachineScaleSets.deleteInstances',
    request: 'POST …/virtualMachineScaleSets/{name}/delete {"instanceIds":[…]}',
    needs: [
      { action: `${COMPUTE}/virtualMachineScaleSets/delete/action`, scope: 'scale set' },
      POLL,
      // Flexible instances are the group's VMs, deleted with their NICs and disks.
      { action: `${COMPUTE}/virtualMachines/delete`, scope: 'resource group', mode: 'Flexible' },
      { action: `${NETWORK}/networkInterfaces/delete`, scope: 'resource group', mode: 'Flexible' },
      { action: `${COMPUTE}/disks/delete`, scope: 'resource group', mode: 'Flexible' },
    ],
  },
  // The warm buffer (pool warm.max): chosen instances parked and woken, never without ids.
  {
    call: 'client.virtualMachineScaleSets.start',
    request: 'POST …/virtualMachineScaleSets/{name}/start {"instanceIds":[…]}',
    needs: [{ action: `${COMPUTE}/virtualMachineScaleSets/start/action`, scope: 'scale set', mode: 'Uniform' }, POLL],
  },
  {
    call: 'client.virtualMachineScaleSets.deallocate',
    request: 'POST …/virtualMachineScaleSets/{name}/deallocate {"instanceIds":[…]}',
    needs: [{ action: `${COMPUTE}/virtualMachineScaleSets/deallocate/action`, scope: 'scale set', mode: 'Uniform' }, POLL],
  },
  {
    call: 'client.virtualMachines.start',
    request: 'POST …/resourceGroups/{group}/providers/Microsoft.Compute/virtualMachines/{vm}/start',
    needs: [{ action: `${COMPUTE}/virtualMachines/start/action`, scope: 'resource group', mode: 'Flexible' }, POLL],
  },
  {
    call: 'client.virtualMachines.deallocate',
    request: 'POST …/resourceGroups/{group}/providers/Microsoft.Compute/virtualMachines/{vm}/deallocate',
    needs: [{ action: `${COMPUTE}/virtualMachines/deallocate/action`, scope: 'resource group', mode: 'Flexible' }, POLL],
  },
];

/** Which custom role of infra/roles.json carries a need: by scope, and by mode within the group. */
export function roleKeyFor(need: ArmNeed): 'scaleSetOperator' | 'scaleSetGroup' | 'flexibleScaleSetGroup' | 'scaleSetLinkedResources' {
  if (need.scope === 'scale set') return 'scaleSetOperator';
  if (need.scope === 'linked resource') return 'scaleSetLinkedResources';
  return need.mode === 'Flexible' ? 'flexibleScaleSetGroup' : 'scaleSetGroup';
}
