import { describe, expect, it } from 'vitest';
import { checkProvisionerConfig } from '../../src/provisioner/config.js';
import type { UncheckedProvisionerConfig } from '../../src/provisioner/config.js';
import { isProvisionerConfigError } from '../../src/provisioner/errors.js';
import { openLimiter } from './fakes.js';

const valid = (): UncheckedProvisionerConfig => ({
  maxCount: 50,
  chunkSize: 20,
  reconcileLimiter: openLimiter(),
  creationLimiter: openLimiter(),
});

describe('checkProvisionerConfig', () => {
  it.each<{ name: string; change: Partial<UncheckedProvisionerConfig>; field: string; message: string }>([
    { name: 'a missing reconcile limiter is refused', change: { reconcileLimiter: undefined }, field: 'reconcileLimiter', message: 'ReconcileLoopLimiter must be set' },
    { name: 'a null creation limiter is refused', change: { creationLimiter: null }, field: 'creationLimiter', message: 'DeviceCreationLimiter must be set' },
    { name: 'the reconcile limiter is reported first when both are missing', change: { reconcileLimiter: null, creationLimiter: null }, field: 'reconcileLimiter', message: 'ReconcileLoopLimiter must be set' },
    { name: 'limiters are checked before the chunk size', change: { creationLimiter: null, chunkSize: 0 }, field: 'creationLimiter', message: 'DeviceCreationLimiter must be set' },
    { name: 'a zero chunk size is refused', change: { chunkSize: 0 }, field: 'chunkSize', message: 'ChunkSize must be set' },
    { name: 'a negative chunk size is refused', change: { chunkSize: -1 }, field: 'chunkSize', message: 'chunkSize must be a whole number ≥ 1, was: -1' },
    { name: 'a fractional chunk size is refused', change: { chunkSize: 1.5 }, field: 'chunkSize', message: 'chunkSize must be a whole number ≥ 1, was: 1.5' },
    { name: 'a negative max count is refused', change: { maxCount: -1 }, field: 'maxCount', message: 'maxCount must be a whole number ≥ 0 (0 = no limit), was: -1' },
  ])('$name', ({ change, field, message }) => {
    let thrown: unknown;
    try {
      checkProvisionerConfig({ ...valid(), ...change });
    } catch (err) {
      thrown = err;
    }
    expect(isProvisionerConfigError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ name: 'ProvisionerConfigError', field, message });
  });

  it.each([
    { name: 'a zero max count means no limit and is valid', change: { maxCount: 0 } },
    { name: 'the seed defaults are valid', change: {} },
    { name: 'a chunk of one is valid', change: { chunkSize: 1 } },
  ])('$name', ({ change }) => {
    const config = { ...valid(), ...change };
    expect(checkProvisionerConfig(config)).toEqual(config);
  });
});
