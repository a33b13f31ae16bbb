/**
 * The instance cache's answers, over a plain list of cached instances. Provider ids are matched
 * exactly (case-sensitive): callers pass ids already normalised by `ids.ts`.
 *
 * `CacheRead` is what the table-backed cache has after "validate" (refresh if expired): either
 * a usable list (fresh, or kept after a throttled refresh), or the error of a failed refresh
 * with the stale list. The `lookup*` functions give upstream's answers for both:
 *
 * | query                 | list usable             | refresh failed                  |
 * | --------------------- | ----------------------- | ------------------------------- |
 * | by provider id        | found / absent          | failed (error)                  |
 * | by state              | matching instances      | `[]` and the error              |
 * | size                  | count                   | `-1` and the error              |
 * | set status            | new list                | new list from the stale one; no error |
 */
import type { CachedInstance, InstanceState, InstanceStatus } from './instance.js';

export type CacheRead =
  | { ok: true; instances: readonly CachedInstance[] }
  | { ok: false; error: Error; stale: readonly CachedInstance[] };

export type InstanceLookup =
  | { kind: 'found'; instance: CachedInstance }
  | { kind: 'absent' }
  | { kind: 'failed'; error: Error };

export function findInstance(
  instances: readonly CachedInstance[],
  providerId: string,
): CachedInstance | undefined {
  return instances.find((i) => i.id === providerId);
}

/** Instances whose state is `state`; instances of unknown state never match. */
export function instancesInState(
  instances: readonly CachedInstance[],
  state: InstanceState,
): CachedInstance[] {
  return instances.filter((i) => i.state === state);
}

/**
 * A new list where the first instance with `providerId` has `status` (Drover marks instances
 * it deletes or creates before ARM shows it). An unknown id leaves the list's contents as they were.
 */
export function withInstanceStatus(
  instances: readonly CachedInstance[],
  providerId: string,
  status: InstanceStatus,
): CachedInstance[] {
  const index = instances.findIndex((i) => i.id === providerId);
  return instances.map((instance, i) =>
    i === index ? { ...instance, state: status.state, errorInfo: status.errorInfo } : instance,
  );
}

/**
 * `withInstanceStatus` for several ids in one pass over the list (a loop of single updates
 * would cost O(ids × list)): the first instance with each id gets `status`.
 */
export function withInstancesStatus(
  instances: readonly CachedInstance[],
  providerIds: Iterable<string>,
  status: InstanceStatus,
): CachedInstance[] {
  const pending = new Set(providerIds);
  return instances.map((instance) =>
    pending.delete(instance.id) ? { ...instance, state: status.state, errorInfo: status.errorInfo } : instance,
  );
}

export function lookupInstance(read: CacheRead, providerId: string): InstanceLookup {
  if (!read.ok) return { kind: 'failed', error: read.error };
  const instance = findInstance(read.instances, providerId);
  return instance ? { kind: 'found', instance } : { kind: 'absent' };
}

export function lookupInstancesByState(
  read: CacheRead,
  state: InstanceState,
): { instances: CachedInstance[]; error: Error | null } {
  if (!read.ok) return { instances: [], error: read.error };
  return { instances: instancesInState(read.instances, state), error: null };
}

/** Size of the cache; `-1` with the error when the refresh failed (upstream's value). */
export function lookupCacheSize(read: CacheRead): { size: number; error: Error | null } {
  if (!read.ok) return { size: -1, error: read.error };
  return { size: read.instances.length, error: null };
}

/**
 * Sets a status even when the refresh failed: the mark goes on the stale entry, and a later
 * refresh corrects it. No error surfaces, as upstream.
 */
export function setInstanceStatusByProviderId(
  read: CacheRead,
  providerId: string,
  status: InstanceStatus,
): CachedInstance[] {
  return withInstanceStatus(read.ok ? read.instances : read.stale, providerId, status);
}
