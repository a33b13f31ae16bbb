/** The scripting handle of one simulated scale set. */
import type { SimOrchestrationMode, SimScaleSet, SimScaleSetSettings, SimVm, SimVmSpec, SimWorld } from './model.js';
import { applySpec } from './model.js';
import { evictVm } from './power.js';
import type { ResourceContext } from './representation.js';
import { etagOf, scaleSetId, vmId } from './representation.js';

export interface SimVmView {
  /** ARM resource id. */
  id: string;
  name: string;
  instanceId: string;
  provisioningState: string | null;
  powerState: string | null;
}

export interface SimScaleSetControl {
  readonly id: string;
  /** Current ETag, as ARM sends it (quoted). */
  readonly etag: string;
  readonly capacity: number;
  orchestrationMode: SimOrchestrationMode | null;
  /** Live VMs in list order, with every due change applied. */
  vms(): SimVmView[];
  /** A VM that exists now (default: Succeeded, running); raises the capacity by one. */
  addVm(spec?: SimVmSpec): SimVmView;
  updateVm(instanceIdOrName: string, spec: SimVmSpec): SimVmView;
  /** The VM vanishes at once (not through Deleting); lowers the capacity by one. */
  removeVm(instanceIdOrName: string): void;
  /**
   * The next `count` VMs created by a capacity increase end in `outcome` instead of
   * Succeeded/running (default: Failed and stopped, i.e. out of capacity).
   */
  failNextCreations(count: number, outcome?: SimVmSpec): void;
  /** Someone else wrote the scale set: its ETag changes. */
  touch(): void;
  /** Changes the model settings status shows (overprovisioning, terminate notification); the ETag changes. */
  configure(settings: SimScaleSetSettings): void;
  /** Azure evicts a Spot VM (power.ts): deallocated, or deleted, by the scale set's eviction policy. */
  evict(instanceIdOrName: string): void;
}

export const FAILED_CREATION: SimVmSpec = Object.freeze({
  provisioningState: 'Failed',
  powerState: 'PowerState/stopped',
});

export function scaleSetControl(
  world: SimWorld,
  context: ResourceContext,
  scaleSet: SimScaleSet,
): SimScaleSetControl {
  const view = (vm: SimVm): SimVmView => ({
    id: vmId(context, scaleSet, vm),
    name: vm.name,
    instanceId: vm.instanceId,
    provisioningState: vm.provisioningState,
    powerState: vm.powerState,
  });
  const vmNamed = (instanceIdOrName: string): SimVm => {
    const vm = world.findVm(scaleSet, instanceIdOrName);
    if (!vm) throw new Error(`sim: scale set ${scaleSet.name} has no VM "${instanceIdOrName}"`);
    return vm;
  };
  return {
    id: scaleSetId(context, scaleSet),
    get etag() {
      return etagOf(scaleSet);
    },
    get capacity() {
      return scaleSet.capacity;
    },
    get orchestrationMode() {
      return scaleSet.orchestrationMode;
    },
    set orchestrationMode(mode) {
      scaleSet.orchestrationMode = mode;
    },
    vms: () => world.liveVms(scaleSet).map(view),
    addVm: (spec) => view(world.addVm(scaleSet, spec)),
    updateVm: (instanceIdOrName, spec) => {
      const vm = vmNamed(instanceIdOrName);
      applySpec(vm, spec);
      return view(vm);
    },
    removeVm: (instanceIdOrName) => {
      const vm = vmNamed(instanceIdOrName);
      vm.removed = true;
      vm.pending = [];
      scaleSet.capacity = Math.max(0, scaleSet.capacity - 1);
    },
    failNextCreations: (count, outcome = FAILED_CREATION) => {
      for (let i = 0; i < count; i++) scaleSet.creationOutcomes.push(outcome);
    },
    touch: () => {
      world.touch(scaleSet);
    },
    configure: (settings) => {
      scaleSet.settings = { ...scaleSet.settings, ...settings };
      world.touch(scaleSet);
    },
    evict: (instanceIdOrName) => evictVm(world, scaleSet, vmNamed(instanceIdOrName)),
  };
}
