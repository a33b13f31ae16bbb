/**
 * Which instances fast delete removes: those Azure failed to provision (out-of-resources error
 * info) and those whose custom script extension failed (seen with `enableDetailedCSEMessage`).
 * Both are broken machines that will not become useful by themselves. An instance is never
 * deleted twice: not when Drover marked it Deleting, nor when ARM lists it Deleting (the seed's
 * mapping turns a Deleting VM whose extension failed into Creating with the error, which stays).
 */
import type { CachedInstance } from '../cache/instance.js';

export const CSE_FAILED = 'VMExtensionProvisioningFailed';

/** A VM that is there but will not serve: failed provisioning or a failed custom script extension. */
export function isBroken(instance: CachedInstance): boolean {
  return instance.state !== 'Deleting' && instance.provisioningState !== 'Deleting' && (instance.errorInfo?.errorClass === 'OutOfResources' || instance.errorInfo?.errorCode === CSE_FAILED);
}

export function instancesToFastDelete(instances: readonly CachedInstance[]): CachedInstance[] {
  return instances.filter(isBroken);
}
