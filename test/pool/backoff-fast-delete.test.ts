import { describe, expect, it } from 'vitest';
import { backoffAfterFailure, isBackingOff, BACKOFF_RESET_MS } from '../../src/pool/backoff.js';
import { instancesToFastDelete } from '../../src/pool/fast-delete.js';
import type { CachedInstance } from '../../src/cache/instance.js';

const MIN = 60_000;

describe('creation backoff after failed provisioning', () => {
  it.each([
    { name: 'the first failure waits 5 min', failures: 0, want: 5 * MIN },
    { name: 'the second doubles to 10 min', failures: 1, want: 10 * MIN },
    { name: 'the third doubles to 20 min', failures: 2, want: 20 * MIN },
    { name: 'the fourth is capped at 30 min', failures: 3, want: 30 * MIN },
    { name: 'later ones stay at 30 min', failures: 9, want: 30 * MIN },
  ])('$name', ({ failures, want }) => {
    const now = 1_000_000_000;
    const previous = failures === 0 ? undefined : { failures, lastFailureAt: now - MIN, until: now };
    expect(backoffAfterFailure(previous, now).until - now).toBe(want);
  });

  it('starts again from 5 min after 3 h without failures', () => {
    const now = 1_000_000_000;
    const next = backoffAfterFailure({ failures: 4, lastFailureAt: now - BACKOFF_RESET_MS, until: 0 }, now);
    expect(next).toEqual({ failures: 1, lastFailureAt: now, until: now + 5 * MIN });
  });

  it('backs off strictly before `until`', () => {
    expect(isBackingOff({ failures: 1, lastFailureAt: 0, until: 100 }, 99)).toBe(true);
    expect(isBackingOff({ failures: 1, lastFailureAt: 0, until: 100 }, 100)).toBe(false);
    expect(isBackingOff(undefined, 0)).toBe(false);
  });
});

describe('fast delete selection', () => {
  const inst = (id: string, over: Partial<CachedInstance>): CachedInstance => ({ id, name: id, powerState: 'PowerState/stopped', state: 'Running', errorInfo: null, ...over });
  const oor = { errorClass: 'OutOfResources' as const, errorCode: 'provisioning-state-failed', errorMessage: 'x' };
  it.each([
    { name: 'an out-of-resources instance is deleted', i: inst('a', { state: 'Creating', errorInfo: oor }), want: true },
    { name: 'one already Deleting is not deleted twice', i: inst('b', { state: 'Deleting', errorInfo: oor }), want: false },
    { name: 'another error is surfaced, not deleted', i: inst('c', { state: 'Creating', errorInfo: { ...oor, errorClass: 'Other' } }), want: false },
    { name: 'a failed custom script extension is deleted (and replaced)', i: inst('e', { state: 'Creating', errorInfo: { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'e: [exit 1]' } }), want: true },
    { name: 'a failed custom script extension already Deleting is not deleted twice', i: inst('f', { state: 'Deleting', errorInfo: { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'f' } }), want: false },
    { name: 'a failed custom script extension that ARM lists Deleting is not deleted twice', i: inst('g', { state: 'Creating', provisioningState: 'Deleting', errorInfo: { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'g' } }), want: false },
    { name: 'a healthy instance stays', i: inst('d', {}), want: false },
  ])('$name', ({ i, want }) => {
    expect(instancesToFastDelete([i]).length === 1).toBe(want);
  });
});
