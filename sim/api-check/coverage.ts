/**
 * Coverage: every call in Drover's operation lists (src/azure/operations.ts,
 * src/kubernetes/operations.ts) is the specification operation named here, and a recording
 * that never made it leaves that call unchecked, which fails the check by the call's name.
 */
import { ARM_OPERATIONS } from '../../src/azure/operations.js';
import { KUBERNETES_OPERATIONS } from '../../src/kubernetes/operations.js';

/** The load sources' calls with a specification here (Service Bus and metrics.k8s.io have none). */
const SOURCE_CALLS = ['azureMonitor metrics (src/load/azure-monitor-source.ts)'];

/** Drover's call (and, for the VM listing, its orchestration mode) → the operation as check.ts names it. */
const SPEC_OPERATION: Readonly<Record<string, string>> = {
  'listVmsVia Uniform': 'VirtualMachineScaleSetVMs_List',
  'listVmsVia Flexible': 'VirtualMachines_List',
  listAutoscaleSettingsVia: 'AutoscaleSettings_ListByResourceGroup',
  'client.virtualMachineScaleSets.get': 'VirtualMachineScaleSets_Get',
  'client.virtualMachineScaleSets.update': 'VirtualMachineScaleSets_Update',
  'client.virtualMachineScaleSets.deleteInstances': 'VirtualMachineScaleSets_DeleteInstances',
  'client.virtualMachineScaleSets.start': 'VirtualMachineScaleSets_Start',
  'client.virtualMachineScaleSets.deallocate': 'VirtualMachineScaleSets_Deallocate',
  'client.virtualMachines.start': 'VirtualMachines_Start',
  'client.virtualMachines.deallocate': 'VirtualMachines_Deallocate',
  'client.virtualMachineScaleSetVMs.update': 'VirtualMachineScaleSetVMs_Update',
  'apps.readNamespacedDeployment': 'readAppsV1NamespacedDeployment',
  'apps.readNamespacedStatefulSet': 'readAppsV1NamespacedStatefulSet',
  'apps.patchNamespacedDeploymentScale': 'patchAppsV1NamespacedDeploymentScale',
  'apps.patchNamespacedStatefulSetScale': 'patchAppsV1NamespacedStatefulSetScale',
  'custom.getNamespacedCustomObjectScale': 'custom resource getScale (as readAppsV1NamespacedDeploymentScale)',
  'custom.patchNamespacedCustomObjectScale': 'custom resource patchScale (as patchAppsV1NamespacedDeploymentScale)',
  'azureMonitor metrics (src/load/azure-monitor-source.ts)': 'Metrics_List',
};

export interface DroverCall {
  call: string;
  operation: string | undefined;
}

export function droverCalls(): DroverCall[] {
  const arm = ARM_OPERATIONS.map((o) => {
    const mode = o.call === 'listVmsVia' ? ` ${o.request.split(':')[0]}` : '';
    return `${o.call}${mode}`;
  });
  const kube = KUBERNETES_OPERATIONS.map((o) => o.call);
  return [...new Set([...arm, ...kube, ...SOURCE_CALLS])].map((call) => ({ call, operation: SPEC_OPERATION[call] }));
}

/** A message per call the recording never made (or that no specification operation stands for). */
export function coverageGaps(calls: readonly DroverCall[], recorded: ReadonlySet<string>): string[] {
  return calls.flatMap(({ call, operation }) => {
    if (!operation) return [`${call}: no specification operation is known for this call (add it to sim/api-check/coverage.ts)`];
    return recorded.has(operation) ? [] : [`${call}: no recorded exchange of ${operation}`];
  });
}
