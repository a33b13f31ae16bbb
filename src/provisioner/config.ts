/**
 * A pool's provisioning settings, checked in the seed's order before any pass runs. The seed's
 * messages are kept (they name the seed's fields); `ProvisionerConfigError.field` names ours.
 */
import { ProvisionerConfigError } from './errors.js';
import type { ProvisioningLimits } from './decide.js';
import type { Limiter } from './ports.js';

export interface ProvisionerConfig extends ProvisioningLimits {
  /** Paces the passes over the pool (the seed's ReconcileLoopLimiter). */
  reconcileLimiter: Limiter;
  /** Paces machine creations (the seed's DeviceCreationLimiter). */
  creationLimiter: Limiter;
}

/** What a caller may hand in before the check: limiters possibly missing. */
export type UncheckedProvisionerConfig = ProvisioningLimits & {
  reconcileLimiter?: Limiter | null;
  creationLimiter?: Limiter | null;
};

/** Throws ProvisionerConfigError for the first problem; maxCount 0 is valid (no limit). */
export function checkProvisionerConfig(config: UncheckedProvisionerConfig): ProvisionerConfig {
  const { reconcileLimiter, creationLimiter, maxCount, chunkSize } = config;
  if (!reconcileLimiter) throw new ProvisionerConfigError('reconcileLimiter', 'ReconcileLoopLimiter must be set');
  if (!creationLimiter) throw new ProvisionerConfigError('creationLimiter', 'DeviceCreationLimiter must be set');
  if (chunkSize === 0) throw new ProvisionerConfigError('chunkSize', 'ChunkSize must be set');
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 0) {
    throw new ProvisionerConfigError('chunkSize', `chunkSize must be a whole number ≥ 1, was: ${chunkSize}`);
  }
  if (!Number.isSafeInteger(maxCount) || maxCount < 0) {
    throw new ProvisionerConfigError('maxCount', `maxCount must be a whole number ≥ 0 (0 = no limit), was: ${maxCount}`);
  }
  return { maxCount, chunkSize, reconcileLimiter, creationLimiter };
}
