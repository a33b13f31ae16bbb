/** SDK models → the port's plain records. Absent and `null` both become `undefined`. */
import type {
  InstanceViewStatus,
  VirtualMachine,
  VirtualMachineExtensionInstanceView,
  VirtualMachineScaleSet,
  VirtualMachineScaleSetVM,
} from '@azure/arm-compute';
import type { ScaleSetInfo, VmExtensionRecord, VmRecord, VmStatusRecord } from './scale-set-api.js';

export function scaleSetInfoOf(vmss: VirtualMachineScaleSet): ScaleSetInfo {
  return {
    id: vmss.id ?? '',
    name: vmss.name ?? '',
    location: vmss.location ?? undefined,
    orchestrationMode: vmss.orchestrationMode ?? undefined,
    // A capacity that is no whole number ≥ 0 is unknown (then no new VM is offered), not a number to plan with.
    capacity: typeof vmss.sku?.capacity === 'number' && Number.isSafeInteger(vmss.sku.capacity) && vmss.sku.capacity >= 0 ? vmss.sku.capacity : undefined,
    etag: vmss.etag ?? undefined,
    provisioningState: vmss.provisioningState ?? undefined,
    ...(vmss.virtualMachineProfile?.priority ? { priority: vmss.virtualMachineProfile.priority } : {}),
    ...scaleSetNotesOf(vmss),
  };
}

/** What status says about the scale set's own settings: overprovisioning and the terminate notification. */
function scaleSetNotesOf(vmss: VirtualMachineScaleSet): Pick<ScaleSetInfo, 'overprovision' | 'terminateNotification'> {
  const terminate = vmss.virtualMachineProfile?.scheduledEventsProfile?.terminateNotificationProfile;
  return {
    ...(typeof vmss.overprovision === 'boolean' ? { overprovision: vmss.overprovision } : {}),
    ...(terminate ? { terminateNotification: { enabled: terminate.enable === true, ...(terminate.notBeforeTimeout ? { notBeforeTimeout: terminate.notBeforeTimeout } : {}) } } : {}),
  };
}

export function uniformVmRecord(vm: VirtualMachineScaleSetVM): VmRecord {
  return vmRecord(vm, vm.instanceId ?? undefined);
}

/** A Flexible scale set names its instances by VM name in deleteInstances. */
export function flexibleVmRecord(vm: VirtualMachine): VmRecord {
  return vmRecord(vm, vm.name ?? undefined);
}

function vmRecord(vm: VirtualMachineScaleSetVM | VirtualMachine, instanceId: string | undefined): VmRecord {
  const view = vm.instanceView ?? undefined;
  return {
    id: vm.id ?? '',
    name: vm.name ?? '',
    instanceId,
    provisioningState: vm.provisioningState ?? undefined,
    zone: vm.zones?.[0] ?? undefined,
    timeCreated: vm.timeCreated instanceof Date && !Number.isNaN(vm.timeCreated.getTime()) ? vm.timeCreated.getTime() : undefined,
    protectFromScaleIn: 'protectionPolicy' in vm ? vm.protectionPolicy?.protectFromScaleIn === true : false,
    protectFromScaleSetActions: 'protectionPolicy' in vm ? vm.protectionPolicy?.protectFromScaleSetActions === true : false,
    instanceView: view && {
      statuses: view.statuses?.map(statusRecord) ?? undefined,
      extensions: view.extensions?.map(extensionRecord) ?? undefined,
    },
  };
}

function statusRecord(status: InstanceViewStatus): VmStatusRecord {
  return {
    code: status.code ?? undefined,
    level: status.level ?? undefined,
    message: status.message ?? undefined,
  };
}

function extensionRecord(extension: VirtualMachineExtensionInstanceView): VmExtensionRecord {
  return {
    name: extension.name ?? undefined,
    statuses: extension.statuses?.map(statusRecord) ?? undefined,
  };
}
