/**
 * Which instances fast delete removes: those Azure failed to provision (out-of-resources error
 * info) and those whose custom script extension failed (seen with `enableDetailedCSEMessage`).
 * Both are broken machines that will not become useful by themselves. An instance already
 * marked Deleting is not deleted twice.
 */
import type { CachedInstance } from '../cache/instance.js';

export const CSE_FAILED = 'VMExtensionProvisioningFailed';

/** A VM that is there but will not serve: failed provisioning or a failed custom script extension. */
export function isBroken(instance: CachedInstance): boolean {
  return instance.state !== 'Deleting' && (instance.errorInfo?.errorClass === 'OutOfResources' || instance.errorInfo?.errorCode === CSE_FAILED);
}

export function instancesToFastDelete(instances: readonly CachedInstance[]): CachedInstance[] {
  return instances.filter(isBroken);
}
