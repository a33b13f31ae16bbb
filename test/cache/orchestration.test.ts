import { describe, expect, it } from 'vitest';
import {
  isFlexNodesDisabledError,
  isUnknownOrchestrationModeError,
  listingModeFor,
} from '../../src/cache/orchestration.js';

describe('which listing a scale set needs (upstream TestScaleSetEnableVmssFlexNodesFlag)', () => {
  it.each([
    { name: 'Uniform is listed through the scale set VM API', reported: 'Uniform', flag: false, want: 'Uniform' },
    { name: 'Flexible with the flag on is listed through the VM API', reported: 'Flexible', flag: true, want: 'Flexible' },
  ])('$name', ({ reported, flag, want }) => {
    expect(listingModeFor('test-asg', reported, flag)).toEqual({ ok: true, mode: want });
  });

  it('Flexible with the flag off is an error naming the scale set and the flag', () => {
    const result = listingModeFor('test-asg', 'Flexible', false);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(isFlexNodesDisabledError(result.error)).toBe(true);
    expect(result.error.message).toBe(
      `vmss - "test-asg" with Flexible orchestration detected but 'enableVmssFlexNodes' feature flag is turned off`,
    );
  });

  it.each([
    { name: 'no mode reported', reported: undefined },
    { name: 'a mode nobody knows', reported: 'Hybrid' },
    { name: 'a mode in the wrong case', reported: 'uniform' },
  ])('$name is an error, flag on or off', ({ reported }) => {
    for (const flag of [false, true]) {
      const result = listingModeFor('test-asg', reported, flag);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(isUnknownOrchestrationModeError(result.error)).toBe(true);
      expect(result.error.message).toBe('failed to determine orchestration mode for vmss "test-asg"');
    }
  });
});
