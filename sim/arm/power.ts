/**
 * The simulator's power operations: start and deallocate, each with its own delay, and the
 * eviction of Spot VMs. A Uniform scale set takes one batch call with `instanceIds` (none at all:
 * every VM, as ARM does); a Flexible scale set's VMs are started and deallocated one VM at a
 * time (ARM offers no batch call there: the single-VM API is the documented alternative).
 *
 * While either runs, ARM reports the VM `Updating` with a transitional power state
 * (`PowerState/starting`, `PowerState/deallocating`); then `Succeeded` with
 * `PowerState/running` or `PowerState/deallocated`. A deallocated VM keeps its place in the
 * scale set's capacity.
 */
import type { SimOperation, SimScaleSet, SimVm, SimWorld } from './model.js';
import { applySpec } from './model.js';
import type { OperationDeps, Reply, RequestInfo } from './operations.js';
import { operationAccepted, scaleSetNotFound } from './operations.js';
import { armError } from './representation.js';

export type PowerAction = 'start' | 'deallocate';

const TRANSITION: Record<PowerAction, { during: string; after: string }> = {
  start: { during: 'PowerState/starting', after: 'PowerState/running' },
  deallocate: { during: 'PowerState/deallocating', after: 'PowerState/deallocated' },
};

/** Starts or deallocates the VMs (a VM being deleted is left alone), as one operation. */
export function changePower(world: SimWorld, action: PowerAction, vms: readonly SimVm[]): SimOperation {
  const delay = action === 'start' ? world.timing.startDelayMs : world.timing.deallocateDelayMs;
  const { during, after } = TRANSITION[action];
  for (const vm of vms) {
    if (vm.provisioningState === 'Deleting') continue;
    applySpec(vm, { provisioningState: 'Updating', powerState: during });
    vm.pending = [{ at: world.clock.now() + delay, change: { provisioningState: 'Succeeded', powerState: after } }];
  }
  return world.startOperation(action, vms);
}

/**
 * Azure takes a Spot VM back: deallocated at once (`evictionPolicy: Deallocate`), or deleted
 * (`Delete`), which lowers the capacity as ARM does.
 * @throws when the scale set's VMs are not Spot.
 */
export function evictVm(world: SimWorld, scaleSet: SimScaleSet, vm: SimVm): void {
  if (scaleSet.priority !== 'Spot') throw new Error(`sim: scale set ${scaleSet.name} has no Spot VMs to evict`);
  if (scaleSet.evictionPolicy === 'Delete') {
    if (vm.provisioningState === 'Deleting') return;
    world.startDeleting(vm);
    scaleSet.capacity = Math.max(0, scaleSet.capacity - 1);
    return;
  }
  vm.pending = [];
  applySpec(vm, { provisioningState: 'Succeeded', powerState: 'PowerState/deallocated' });
}

/** POST …/virtualMachineScaleSets/{name}/start or …/deallocate, `{ instanceIds }` optional (Uniform only). */
export function scaleSetPower(action: PowerAction) {
  return (deps: OperationDeps, params: Record<string, string>, _url: URL, req: RequestInfo): Reply => {
    const scaleSet = deps.world.findScaleSet(params.rg ?? '', params.name ?? '');
    if (!scaleSet) return scaleSetNotFound(params);
    if (scaleSet.orchestrationMode === 'Flexible') {
      return { status: 400, body: armError('OperationNotAllowed', `Virtual machine scale set ${action} is not supported for Flexible orchestration mode; use the single VM API.`) };
    }
    const ids = (req.body as { instanceIds?: unknown } | undefined)?.instanceIds;
    if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))) {
      return { status: 400, body: armError('InvalidParameter', 'instanceIds must be a list of strings.') };
    }
    const live = deps.world.liveVms(scaleSet);
    // No list, or an empty one: ARM applies the call to every VM of the scale set.
    if (ids === undefined || ids.length === 0) return operationAccepted(deps, changePower(deps.world, action, live));
    const vms: SimVm[] = [];
    for (const id of ids as string[]) {
      const vm = live.find((v) => v.instanceId === id);
      if (!vm) return { status: 400, body: armError('InvalidParameter', `The provided instanceId ${id} is not an active Virtual Machine Scale Set VM instanceId.`) };
      vms.push(vm);
    }
    return operationAccepted(deps, changePower(deps.world, action, vms));
  };
}

/** POST …/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines/{vm}/start or …/deallocate. */
export function vmPower(action: PowerAction) {
  return (deps: OperationDeps, params: Record<string, string>): Reply => {
    const group = (params.rg ?? '').toLowerCase();
    const name = (params.vm ?? '').toLowerCase();
    for (const scaleSet of deps.world.scaleSets) {
      if (scaleSet.resourceGroup.toLowerCase() !== group || scaleSet.orchestrationMode !== 'Flexible') continue;
      const vm = deps.world.liveVms(scaleSet).find((v) => v.name.toLowerCase() === name);
      if (vm) return operationAccepted(deps, changePower(deps.world, action, [vm]));
    }
    return { status: 404, body: armError('ResourceNotFound', `The Resource 'Microsoft.Compute/virtualMachines/${params.vm}' under resource group '${params.rg}' was not found.`) };
  };
}
