/**
 * The cache's new instance list from one VM listing: ARM's order, provider ids normalised,
 * statuses mapped against the previous list (which decides Updating VMs and VMs without a
 * provisioning state).
 */
import type { VmRecord } from '../azure/scale-set-api.js';
import { tryProviderIdFromResourceId } from './ids.js';
import type { CachedInstance } from './instance.js';
import type { StatusFlags } from './instance-status.js';
import { indexById, instanceStatusFromVm } from './instance-status.js';
import { powerStateOfVm } from './power-state.js';

export interface SkippedVm {
  id: string;
  name: string;
  reason: 'no resource id' | 'resource id without resource group';
}

export interface BuiltInstances {
  instances: CachedInstance[];
  /** VMs left out; the caller logs the second kind as a warning (ARM should never send it). */
  skipped: SkippedVm[];
}

/** What scale-in chooses by: ARM's own state, zone, age and protection (plain fields, undefined when absent). */
function placementOf(vm: VmRecord): Pick<CachedInstance, 'provisioningState' | 'zone' | 'timeCreated' | 'protectFromScaleIn' | 'protectFromScaleSetActions'> {
  const placement: Pick<CachedInstance, 'provisioningState' | 'zone' | 'timeCreated' | 'protectFromScaleIn' | 'protectFromScaleSetActions'> = {};
  if (vm.provisioningState !== undefined) placement.provisioningState = vm.provisioningState;
  if (vm.zone !== undefined) placement.zone = vm.zone;
  if (vm.timeCreated !== undefined) placement.timeCreated = vm.timeCreated;
  if (vm.protectFromScaleIn) placement.protectFromScaleIn = true;
  if (vm.protectFromScaleSetActions) placement.protectFromScaleSetActions = true;
  return placement;
}

export function buildInstances(
  vms: readonly VmRecord[],
  previous: readonly CachedInstance[],
  flags: StatusFlags,
): BuiltInstances {
  const instances: CachedInstance[] = [];
  const skipped: SkippedVm[] = [];
  // Looked up per VM: a map, so a listing of n VMs costs O(n), not O(n²).
  const previousById = indexById(previous);
  for (const vm of vms) {
    // ARM lists a VM without an id while it is being deleted.
    if (vm.id === '') {
      skipped.push({ id: vm.id, name: vm.name, reason: 'no resource id' });
      continue;
    }
    const id = tryProviderIdFromResourceId(vm.id);
    if (id === undefined) {
      skipped.push({ id: vm.id, name: vm.name, reason: 'resource id without resource group' });
      continue;
    }
    const status = instanceStatusFromVm(vm, previousById, flags);
    instances.push({ id, name: vm.name, powerState: powerStateOfVm(vm), ...status, ...placementOf(vm) });
  }
  return { instances, skipped };
}
