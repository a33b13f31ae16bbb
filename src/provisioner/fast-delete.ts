/**
 * Which instances fast delete removes: those whose cached state carries out-of-resources error
 * info (Azure failed to provision them and they are not running). An instance already marked
 * Deleting is not deleted twice.
 */
import type { CachedInstance } from '../cache/instance.js';

export function instancesToFastDelete(instances: readonly CachedInstance[]): CachedInstance[] {
  return instances.filter((i) => i.state !== 'Deleting' && i.errorInfo?.errorClass === 'OutOfResources');
}
