/**
 * A VM's instance status, from its provisioning state, power state and extensions. One function
 * serves both orchestration modes (Flexible VMs are listed with their instance view too, so
 * fast delete and extension errors work there as well).
 *
 * | provisioning state  | fast delete | power               | → state  | error info       |
 * | ------------------- | ----------- | ------------------- | -------- | ---------------- |
 * | none, `Updating`    | –           | –                   | previous cached status (unknown if none) |
 * | `Deleting`          | –           | –                   | Deleting | –                |
 * | `Creating`          | –           | –                   | Creating | –                |
 * | `Failed`            | off         | –                   | Running  | –                |
 * | `Failed`            | on          | running, starting   | Running  | –                |
 * | `Failed`            | on          | any other           | Creating | OutOfResources   |
 * | anything else       | –           | –                   | Running  | –                |
 *
 * With detailed CSE messages on, a VM with an instance view whose `vmssCSE` extension reports
 * Error statuses becomes Creating with an `Other` error, whatever the rows above said.
 * Creating with error info is what later triggers a delete of the instance.
 */
import type { VmExtensionRecord, VmRecord } from '../azure/scale-set-api.js';
import { capText } from '../text/cap.js';
import { tryProviderIdFromResourceId } from './ids.js';
import type { CachedInstance, InstanceStatus } from './instance.js';
import { UNKNOWN_STATUS } from './instance.js';
import type { PowerState } from './power-state.js';
import { isRunningPowerState, powerStateOfVm } from './power-state.js';

export interface StatusFlags {
  enableFastDeleteOnFailedProvisioning: boolean;
  enableDetailedCSEMessage: boolean;
}

const CSE_EXTENSION_NAME = 'vmsscse';

/** The previous list by provider id, the first of duplicates kept (as a `find` over the list would). */
export type InstancesById = ReadonlyMap<string, CachedInstance>;

export function indexById(instances: readonly CachedInstance[]): InstancesById {
  const byId = new Map<string, CachedInstance>();
  for (const instance of instances) if (!byId.has(instance.id)) byId.set(instance.id, instance);
  return byId;
}

export function instanceStatusFromVm(
  vm: VmRecord,
  previous: InstancesById,
  flags: StatusFlags,
): InstanceStatus {
  // While ARM only reports an update (or nothing), its power state may still lag behind what
  // Drover itself did (e.g. a delete it just sent): keep what the cache knew.
  if (vm.provisioningState === undefined || vm.provisioningState === 'Updating') {
    return cachedStatus(vm.id, previous);
  }
  const status = statusFromProvisioningState(
    vm.provisioningState,
    powerStateOfVm(vm),
    flags.enableFastDeleteOnFailedProvisioning,
  );
  if (flags.enableDetailedCSEMessage && vm.instanceView !== undefined) {
    const cse = cseErrors(vm.instanceView.extensions);
    if (cse.failed) {
      return {
        state: 'Creating',
        errorInfo: {
          errorClass: 'Other',
          errorCode: 'VMExtensionProvisioningFailed',
          // Capped: the extension writes what it likes, and the row must still fit a batch.
          errorMessage: capText(`${vm.name}: [${cse.messages.join(' ')}]`),
        },
      };
    }
  }
  return status;
}

export function statusFromProvisioningState(
  provisioningState: string,
  powerState: PowerState,
  enableFastDeleteOnFailedProvisioning: boolean,
): InstanceStatus {
  switch (provisioningState) {
    case 'Deleting':
      return { state: 'Deleting', errorInfo: null };
    case 'Creating':
      return { state: 'Creating', errorInfo: null };
    case 'Failed':
      // The provisioning state is the latest operation's: a VM that failed a later update may
      // well be running, and only one that never came up is worth replacing.
      if (enableFastDeleteOnFailedProvisioning && !isRunningPowerState(powerState)) {
        return {
          state: 'Creating',
          errorInfo: {
            errorClass: 'OutOfResources',
            errorCode: 'provisioning-state-failed',
            errorMessage: 'Azure failed to provision a node for this node group',
          },
        };
      }
      return { state: 'Running', errorInfo: null };
    default:
      return { state: 'Running', errorInfo: null };
  }
}

/** Messages of the Error statuses of the custom script extension (`vmssCSE`, any case). */
export function cseErrors(extensions: readonly VmExtensionRecord[] | undefined): {
  failed: boolean;
  messages: string[];
} {
  const messages: string[] = [];
  for (const extension of extensions ?? []) {
    if (extension.name?.toLowerCase() !== CSE_EXTENSION_NAME) continue;
    for (const status of extension.statuses ?? []) {
      if (status.level === 'Error') messages.push(status.message ?? '');
    }
  }
  return { failed: messages.length > 0, messages };
}

function cachedStatus(resourceId: string, previous: InstancesById): InstanceStatus {
  const providerId = tryProviderIdFromResourceId(resourceId);
  const known = providerId === undefined ? undefined : previous.get(providerId);
  return known ? { state: known.state, errorInfo: known.errorInfo } : UNKNOWN_STATUS;
}
