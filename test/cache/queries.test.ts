import { describe, expect, it } from 'vitest';
import type { CachedInstance } from '../../src/cache/instance.js';
import type { CacheRead } from '../../src/cache/queries.js';
import {
  findInstance,
  instancesInState,
  lookupCacheSize,
  lookupInstance,
  lookupInstancesByState,
  setInstanceStatusByProviderId,
  withInstanceStatus,
  withInstancesStatus,
} from '../../src/cache/queries.js';
import { OUT_OF_RESOURCES } from './fixtures.js';

const instance = (i: number, state: CachedInstance['state']): CachedInstance => ({
  id: `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${i}`,
  name: `vmss_${i}`,
  state,
  errorInfo: null,
  powerState: 'PowerState/running',
});
const LIST = [instance(0, 'Running'), instance(1, null), instance(2, 'Deleting'), instance(3, 'Running')];
const fresh: CacheRead = { ok: true, instances: LIST };
const failed: CacheRead = { ok: false, error: new Error('list failed'), stale: LIST };
const DELETING = { state: 'Deleting' as const, errorInfo: null };

describe('look-ups over the cached list', () => {
  it('finds an instance by exact provider id', () => {
    expect(findInstance(LIST, LIST[2]!.id)).toBe(LIST[2]);
    expect(findInstance(LIST, LIST[2]!.id.toUpperCase())).toBeUndefined();
  });

  it.each([
    { name: 'by state Running gives the running ones, in order', state: 'Running' as const, want: [0, 3] },
    { name: 'by state Deleting gives the deleting one', state: 'Deleting' as const, want: [2] },
    { name: 'by a state nobody is in gives an empty list', state: 'Creating' as const, want: [] },
  ])('$name', ({ state, want }) => {
    expect(instancesInState(LIST, state)).toEqual(want.map((i) => LIST[i]));
  });

  it('never matches instances of unknown state', () => {
    expect(instancesInState([instance(1, null)], 'Running')).toEqual([]);
  });
});

describe('proactive status set', () => {
  it('returns a new list with the status on the matching instance, leaving the input alone', () => {
    const next = withInstanceStatus(LIST, LIST[0]!.id, { state: 'Creating', errorInfo: OUT_OF_RESOURCES });
    expect(next).not.toBe(LIST);
    expect(next[0]).toEqual({ ...LIST[0], state: 'Creating', errorInfo: OUT_OF_RESOURCES });
    expect(LIST[0]!.state).toBe('Running');
    expect(next.slice(1)).toEqual(LIST.slice(1));
  });

  it('an unknown provider id changes nothing', () => {
    expect(withInstanceStatus(LIST, 'azure:///unknown', DELETING)).toEqual(LIST);
  });

  it('with duplicate ids only the first is updated', () => {
    const twice = [instance(0, 'Running'), instance(0, 'Running')];
    expect(withInstanceStatus(twice, twice[0]!.id, DELETING).map((i) => i.state)).toEqual(['Deleting', 'Running']);
  });
});

describe('status set for several instances at once', () => {
  it('marks each listed id and leaves the rest, as single sets one after another would', () => {
    const ids = [LIST[3]!.id, LIST[0]!.id, 'azure:///unknown'];
    let oneByOne: CachedInstance[] = [...LIST];
    for (const id of ids) oneByOne = withInstanceStatus(oneByOne, id, DELETING);
    expect(withInstancesStatus(LIST, ids, DELETING)).toEqual(oneByOne);
    expect(withInstancesStatus(LIST, ids, DELETING).map((i) => i.state)).toEqual(['Deleting', null, 'Deleting', 'Deleting']);
  });

  it('with duplicate ids in the list only the first is updated, even when the id is passed twice', () => {
    const twice = [instance(0, 'Running'), instance(0, 'Running')];
    expect(withInstancesStatus(twice, [twice[0]!.id, twice[0]!.id], DELETING).map((i) => i.state)).toEqual(['Deleting', 'Running']);
  });
});

describe('answers while the cache is usable', () => {
  it('finds or misses', () => {
    expect(lookupInstance(fresh, LIST[2]!.id)).toEqual({ kind: 'found', instance: LIST[2] });
    expect(lookupInstance(fresh, 'azure:///nope')).toEqual({ kind: 'absent' });
  });

  it('lists by state and counts', () => {
    expect(lookupInstancesByState(fresh, 'Deleting')).toEqual({ instances: [LIST[2]], error: null });
    expect(lookupCacheSize(fresh)).toEqual({ size: 4, error: null });
    expect(lookupCacheSize({ ok: true, instances: [] })).toEqual({ size: 0, error: null });
  });
});

describe('answers after a failed refresh (upstream error values)', () => {
  it('by provider id: not found, with the error', () => {
    expect(lookupInstance(failed, LIST[0]!.id)).toEqual({ kind: 'failed', error: failed.ok ? null : failed.error });
  });

  it('by state: an empty list, with the error', () => {
    const answer = lookupInstancesByState(failed, 'Running');
    expect(answer.instances).toEqual([]);
    expect(answer.error?.message).toBe('list failed');
  });

  it('size: -1, with the error', () => {
    expect(lookupCacheSize(failed)).toMatchObject({ size: -1 });
    expect(lookupCacheSize(failed).error?.message).toBe('list failed');
  });

  it('set status: still writes into the stale entry, and surfaces no error', () => {
    const next = setInstanceStatusByProviderId(failed, LIST[0]!.id, DELETING);
    expect(next[0]!.state).toBe('Deleting');
    expect(setInstanceStatusByProviderId(fresh, LIST[3]!.id, DELETING)[3]!.state).toBe('Deleting');
  });
});
