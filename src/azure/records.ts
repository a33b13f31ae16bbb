/** The SDK's scale set model → the port's plain record. Absent and `null` both become `undefined`. (VMs: vm-listing.ts.) */
import type { VirtualMachineScaleSet } from '@azure/arm-compute';
import type { ScaleSetInfo } from './scale-set-api.js';

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
