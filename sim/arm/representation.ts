/** The simulator's world as ARM's JSON (api-version 2026-03-01 shapes, as the SDK reads them). */
import type { SimScaleSet, SimStatus, SimVm } from './model.js';

export interface ResourceContext {
  subscriptionId: string;
  location: string;
}

export function scaleSetId(ctx: ResourceContext, scaleSet: SimScaleSet): string {
  return `/subscriptions/${ctx.subscriptionId}/resourceGroups/${scaleSet.resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${scaleSet.name}`;
}

export function vmId(ctx: ResourceContext, scaleSet: SimScaleSet, vm: SimVm): string {
  return scaleSet.orchestrationMode === 'Flexible'
    ? `/subscriptions/${ctx.subscriptionId}/resourceGroups/${scaleSet.resourceGroup}/providers/Microsoft.Compute/virtualMachines/${vm.name}`
    : `${scaleSetId(ctx, scaleSet)}/virtualMachines/${vm.instanceId}`;
}

/** ETags are opaque quoted strings that change on every write to the scale set. */
export function etagOf(scaleSet: SimScaleSet): string {
  return `"${scaleSet.version}"`;
}

export function scaleSetJson(ctx: ResourceContext, scaleSet: SimScaleSet, provisioningState = 'Succeeded'): object {
  return {
    id: scaleSetId(ctx, scaleSet),
    name: scaleSet.name,
    type: 'Microsoft.Compute/virtualMachineScaleSets',
    location: ctx.location,
    etag: etagOf(scaleSet),
    sku: { name: 'Standard_D2s_v5', tier: 'Standard', capacity: scaleSet.capacity },
    properties: {
      ...(scaleSet.orchestrationMode ? { orchestrationMode: scaleSet.orchestrationMode } : {}),
      provisioningState,
      singlePlacementGroup: false,
      ...overprovisionJson(scaleSet),
      virtualMachineProfile: {
        priority: scaleSet.priority,
        ...(scaleSet.priority === 'Spot' ? { evictionPolicy: scaleSet.evictionPolicy } : {}),
        ...scheduledEventsJson(scaleSet),
      },
    },
  };
}

function overprovisionJson(scaleSet: SimScaleSet): object {
  const { overprovision } = scaleSet.settings;
  return overprovision === undefined ? {} : { overprovision };
}

function scheduledEventsJson(scaleSet: SimScaleSet): object {
  const { terminateNotification } = scaleSet.settings;
  return terminateNotification ? { scheduledEventsProfile: { terminateNotificationProfile: terminateNotification } } : {};
}

export function vmJson(ctx: ResourceContext, scaleSet: SimScaleSet, vm: SimVm, withInstanceView: boolean): object {
  const flexible = scaleSet.orchestrationMode === 'Flexible';
  const properties: Record<string, unknown> = {};
  if (flexible) properties.virtualMachineScaleSet = { id: scaleSetId(ctx, scaleSet) };
  else properties.latestModelApplied = true;
  if (vm.provisioningState !== null) properties.provisioningState = vm.provisioningState;
  properties.timeCreated = new Date(vm.timeCreated).toISOString();
  if (!flexible && (vm.protectFromScaleIn || vm.protectFromScaleSetActions)) {
    properties.protectionPolicy = { protectFromScaleIn: vm.protectFromScaleIn, protectFromScaleSetActions: vm.protectFromScaleSetActions };
  }
  if (withInstanceView && vm.instanceView) properties.instanceView = instanceViewJson(vm);
  return {
    id: vmId(ctx, scaleSet, vm),
    name: vm.name,
    type: flexible
      ? 'Microsoft.Compute/virtualMachines'
      : 'Microsoft.Compute/virtualMachineScaleSets/virtualMachines',
    location: ctx.location,
    ...(flexible ? {} : { instanceId: vm.instanceId }),
    ...(vm.zone ? { zones: [vm.zone] } : {}),
    properties,
  };
}

function instanceViewJson(vm: SimVm): object {
  const view: Record<string, unknown> = {};
  const statuses = vm.statuses === undefined ? generatedStatuses(vm) : vm.statuses;
  if (statuses !== null) view.statuses = statuses;
  if (vm.extensions.length > 0) view.extensions = vm.extensions;
  return view;
}

function generatedStatuses(vm: SimVm): SimStatus[] {
  const statuses: SimStatus[] = [];
  if (vm.provisioningState !== null) {
    statuses.push({
      code: `ProvisioningState/${vm.provisioningState.toLowerCase()}`,
      level: vm.provisioningState === 'Failed' ? 'Error' : 'Info',
      displayStatus: `Provisioning ${vm.provisioningState.toLowerCase()}`,
    });
  }
  if (vm.powerState !== null) {
    statuses.push({ code: vm.powerState, level: 'Info', displayStatus: vm.powerState.replace('PowerState/', 'VM ') });
  }
  return statuses;
}

export function armError(code: string, message: string): object {
  return { error: { code, message } };
}
