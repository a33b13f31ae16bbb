/**
 * The simulator's world: scale sets, their VMs and the long-running operations that change them.
 * Time-driven changes (a VM finishing provisioning, a deleted VM disappearing) are scheduled
 * against an injected clock and applied lazily whenever the world is read, so tests can drive
 * them with a ManualClock and nothing needs a timer.
 */
import type { Clock } from '../../src/clock.js';

export type SimOrchestrationMode = 'Uniform' | 'Flexible';

export interface SimStatus {
  code?: string;
  level?: 'Info' | 'Warning' | 'Error';
  displayStatus?: string;
  message?: string;
}

export interface SimExtension {
  name: string;
  statuses?: SimStatus[];
}

/** How a VM looks to ARM clients. Each field left out keeps its current (or default) value. */
export interface SimVmSpec {
  /** Default `Succeeded`; `null`: ARM reports no provisioning state. */
  provisioningState?: string | null;
  /** Default `PowerState/running`; `null`: no PowerState status. */
  powerState?: string | null;
  /** Replaces the statuses generated from the two fields above; `null`: no `statuses` key. */
  statuses?: SimStatus[] | null;
  /** `false`: the VM is listed without an instance view (ARM could not produce one). */
  instanceView?: boolean;
  extensions?: SimExtension[];
  /** Availability zone ('1', '2', '3'); none by default. */
  zone?: string | null;
  /** Uniform `protectionPolicy`. */
  protectFromScaleIn?: boolean;
  protectFromScaleSetActions?: boolean;
}

export interface SimVm {
  readonly instanceId: string;
  readonly name: string;
  provisioningState: string | null;
  powerState: string | null;
  statuses: SimStatus[] | null | undefined;
  instanceView: boolean;
  extensions: SimExtension[];
  zone: string | null;
  /** Epoch ms: when the VM was created (ARM's `timeCreated`). */
  readonly timeCreated: number;
  protectFromScaleIn: boolean;
  protectFromScaleSetActions: boolean;
  /** Set once the VM is gone from ARM. */
  removed: boolean;
  pending: { at: number; change: SimVmSpec | 'remove' }[];
}

export interface SimScaleSet {
  readonly resourceGroup: string;
  readonly name: string;
  /** `null`: ARM reports no orchestration mode. */
  orchestrationMode: SimOrchestrationMode | null;
  capacity: number;
  version: number;
  vms: SimVm[];
  nextOrdinal: number;
  creationOutcomes: SimVmSpec[];
  /** The model's `priority` (Spot VMs can be evicted, see power.ts); default Regular. */
  priority: SimPriority;
  /** What an eviction does to a Spot VM; default Deallocate. */
  evictionPolicy: SimEvictionPolicy;
  /** Model settings that status shows (absent: not in ARM's answer). */
  settings: SimScaleSetSettings;
}

/** The scale set's `overprovision` and `scheduledEventsProfile.terminateNotificationProfile`. */
export interface SimScaleSetSettings {
  overprovision?: boolean;
  terminateNotification?: { enable: boolean; notBeforeTimeout?: string };
}

export type SimPriority = 'Regular' | 'Spot';
export type SimEvictionPolicy = 'Deallocate' | 'Delete';

/** An Azure Monitor autoscale setting of a resource group (autoscale.ts lists and scripts them). */
export interface SimAutoscaleSetting {
  readonly resourceGroup: string;
  readonly name: string;
  targetResourceUri: string;
  enabled: boolean;
  removed: boolean;
}

export interface SimOperation {
  readonly id: string;
  readonly startedAt: number;
  /** Done when every one of these VMs has left Creating (or is gone, for deletions). */
  readonly vms: readonly SimVm[];
  readonly kind: 'create' | 'delete' | 'start' | 'deallocate';
}

export interface TimingOptions {
  /** Creating → Succeeded (or a scripted outcome) after this long. */
  provisionDelayMs: number;
  /** Deleting → gone after this long. */
  deleteDelayMs: number;
  /** Deallocated → running after this long (power.ts). */
  startDelayMs: number;
  /** Running → deallocated after this long (power.ts). */
  deallocateDelayMs: number;
}

export const SUCCEEDED_OUTCOME: SimVmSpec = Object.freeze({
  provisioningState: 'Succeeded',
  powerState: 'PowerState/running',
});

export class SimWorld {
  readonly scaleSets: SimScaleSet[] = [];
  /** The resource groups' Azure Monitor autoscale settings (autoscale.ts). */
  readonly autoscaleSettings: SimAutoscaleSetting[] = [];
  private readonly operations = new Map<string, SimOperation>();
  private operationCount = 0;

  constructor(
    readonly clock: Clock,
    readonly timing: TimingOptions,
  ) {}

  findScaleSet(resourceGroup: string, name: string): SimScaleSet | undefined {
    this.settle();
    return this.scaleSets.find(
      (s) => same(s.resourceGroup, resourceGroup) && same(s.name, name),
    );
  }

  addScaleSet(
    resourceGroup: string,
    name: string,
    orchestrationMode: SimOrchestrationMode | null,
  ): SimScaleSet {
    if (this.findScaleSet(resourceGroup, name)) {
      throw new Error(`sim: scale set ${resourceGroup}/${name} already exists`);
    }
    const scaleSet: SimScaleSet = {
      resourceGroup,
      name,
      orchestrationMode,
      capacity: 0,
      version: 1,
      vms: [],
      nextOrdinal: 0,
      creationOutcomes: [],
      settings: {},
      priority: 'Regular',
      evictionPolicy: 'Deallocate',
    };
    this.scaleSets.push(scaleSet);
    return scaleSet;
  }

  /** A VM that exists now, in the given state; counts towards capacity. */
  addVm(scaleSet: SimScaleSet, spec: SimVmSpec = {}): SimVm {
    const vm = this.newVm(scaleSet);
    applySpec(vm, { ...SUCCEEDED_OUTCOME, ...spec });
    scaleSet.capacity += 1;
    return vm;
  }

  /** Live VMs of a scale set, in list order, after applying every change that is due. */
  liveVms(scaleSet: SimScaleSet): SimVm[] {
    this.settle();
    return scaleSet.vms.filter((vm) => !vm.removed);
  }

  findVm(scaleSet: SimScaleSet, instanceIdOrName: string): SimVm | undefined {
    return this.liveVms(scaleSet).find(
      (vm) => vm.instanceId === instanceIdOrName || same(vm.name, instanceIdOrName),
    );
  }

  /** A write that changes nothing but the scale set's ETag (someone else's update). */
  touch(scaleSet: SimScaleSet): undefined {
    scaleSet.version += 1;
    return undefined;
  }

  /** Capacity change as ARM does it: new VMs start Creating, removed ones go Deleting. */
  setCapacity(scaleSet: SimScaleSet, capacity: number): SimOperation | undefined {
    const live = this.liveVms(scaleSet).filter((vm) => vm.provisioningState !== 'Deleting');
    scaleSet.version += 1;
    const delta = capacity - scaleSet.capacity;
    scaleSet.capacity = capacity;
    if (delta > 0) {
      const created = Array.from({ length: delta }, () => this.startCreating(scaleSet));
      return this.startOperation('create', created);
    }
    if (delta < 0) {
      const removed = live.slice(delta);
      for (const vm of removed) this.startDeleting(vm);
      return this.startOperation('delete', removed);
    }
    return undefined;
  }

  deleteInstances(scaleSet: SimScaleSet, vms: readonly SimVm[]): SimOperation {
    scaleSet.version += 1;
    for (const vm of vms) {
      if (vm.provisioningState === 'Deleting') continue;
      this.startDeleting(vm);
      scaleSet.capacity = Math.max(0, scaleSet.capacity - 1);
    }
    return this.startOperation('delete', vms);
  }

  operation(id: string): SimOperation | undefined {
    this.settle();
    return this.operations.get(id);
  }

  isDone(operation: SimOperation): boolean {
    this.settle();
    if (operation.kind === 'delete') return operation.vms.every((vm) => vm.removed);
    // A start or deallocate is done when its VMs left Updating (power.ts), a creation when they left Creating.
    const busy = operation.kind === 'create' ? 'Creating' : 'Updating';
    return operation.vms.every((vm) => vm.removed || vm.provisioningState !== busy);
  }

  /** Applies every scheduled change whose time has come, in time order. */
  settle(): void {
    const now = this.clock.now();
    for (const scaleSet of this.scaleSets) {
      for (const vm of scaleSet.vms) {
        while (vm.pending[0] && vm.pending[0].at <= now) {
          const { change } = vm.pending.shift()!;
          if (change === 'remove') vm.removed = true;
          else applySpec(vm, change);
        }
      }
      scaleSet.vms = scaleSet.vms.filter((vm) => !vm.removed || vm.pending.length > 0);
    }
  }

  private newVm(scaleSet: SimScaleSet): SimVm {
    const ordinal = scaleSet.nextOrdinal++;
    const vm: SimVm = {
      instanceId: String(ordinal),
      name:
        scaleSet.orchestrationMode === 'Flexible'
          ? `${scaleSet.name}_${ordinal.toString(16).padStart(8, '0')}`
          : `${scaleSet.name}_${ordinal}`,
      provisioningState: null,
      powerState: null,
      statuses: undefined,
      instanceView: true,
      extensions: [],
      zone: null,
      timeCreated: this.clock.now(),
      protectFromScaleIn: false,
      protectFromScaleSetActions: false,
      removed: false,
      pending: [],
    };
    scaleSet.vms.push(vm);
    return vm;
  }

  private startCreating(scaleSet: SimScaleSet): SimVm {
    const vm = this.newVm(scaleSet);
    applySpec(vm, { provisioningState: 'Creating', powerState: 'PowerState/starting' });
    const outcome = scaleSet.creationOutcomes.shift() ?? SUCCEEDED_OUTCOME;
    vm.pending.push({ at: this.clock.now() + this.timing.provisionDelayMs, change: outcome });
    return vm;
  }

  /** Deleting at once, gone after the delete delay. */
  startDeleting(vm: SimVm): void {
    applySpec(vm, { provisioningState: 'Deleting', powerState: 'PowerState/deallocating' });
    vm.pending = [{ at: this.clock.now() + this.timing.deleteDelayMs, change: 'remove' }];
  }

  /** A long-running operation over these VMs, pollable by its id. */
  startOperation(kind: SimOperation['kind'], vms: readonly SimVm[]): SimOperation {
    this.operationCount += 1;
    const id = `00000000-0000-4000-8000-${this.operationCount.toString(16).padStart(12, '0')}`;
    const operation: SimOperation = { id, kind, vms, startedAt: this.clock.now() };
    this.operations.set(id, operation);
    return operation;
  }
}

export function applySpec(vm: SimVm, spec: SimVmSpec): void {
  if (spec.provisioningState !== undefined) vm.provisioningState = spec.provisioningState;
  if (spec.powerState !== undefined) vm.powerState = spec.powerState;
  if (spec.statuses !== undefined) vm.statuses = spec.statuses;
  if (spec.instanceView !== undefined) vm.instanceView = spec.instanceView;
  if (spec.extensions !== undefined) vm.extensions = spec.extensions;
  if (spec.zone !== undefined) vm.zone = spec.zone;
  if (spec.protectFromScaleIn !== undefined) vm.protectFromScaleIn = spec.protectFromScaleIn;
  if (spec.protectFromScaleSetActions !== undefined) vm.protectFromScaleSetActions = spec.protectFromScaleSetActions;
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
