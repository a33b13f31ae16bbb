/**
 * Whether a call on the instance cache serves what is stored, claims the meta row and lists
 * ARM, or serves what is stored because someone else is listing (pure: plain data in and out).
 * One rule for every caller, the dry run included (which runs it against a store that writes
 * nothing):
 * - expired (refresh-policy.ts `isExpired`), or forced (not while ARM throttles), or the scale set's capacity differs
 *   from the VMs the cache holds that are not being deleted (ARM lowers the capacity as soon
 *   as it accepts a delete), unless ARM throttles listings (no chasing a capacity through 429s);
 * - a claim on the meta row that has not run out: another invocation lists, serve stale;
 * - a stored cache of the old one-row-per-VM format always lists (the listing migrates it).
 */
import type { CachedInstance } from './instance.js';
import { isExpired } from './refresh-policy.js';

/** The meta row's fields the plan reads. */
export interface PlanMeta {
  lastRefresh?: number;
  claimedBy?: string;
  claimUntil?: number;
  throttledUntil?: number;
  /** VMs of the last listing not cached (an id that could not be parsed) but counted by ARM. */
  unparseable?: number;
  /** Absent on a cache still in the one-row-per-VM format. */
  packs?: number;
}

export interface PlanSettings {
  periodMs: number;
  jitterSec: number;
  /** List whatever the period says (the seed's forced update). */
  force?: boolean;
}

export type RefreshPlan =
  | { kind: 'serve' }
  | { kind: 'list'; why: 'never listed' | 'expired' | 'capacity drift' | 'forced' | 'old format' }
  | { kind: 'serve-stale'; why: 'another invocation is listing' };

export function planRefresh(
  meta: PlanMeta | undefined,
  stored: readonly CachedInstance[],
  scaleSet: { capacity?: number } | undefined,
  now: number,
  settings: PlanSettings,
): RefreshPlan {
  const why = listReason(meta, stored, scaleSet, now, settings);
  if (why === undefined) return { kind: 'serve' };
  if (meta?.claimedBy && (meta.claimUntil ?? 0) > now) return { kind: 'serve-stale', why: 'another invocation is listing' };
  return { kind: 'list', why };
}

function listReason(
  meta: PlanMeta | undefined,
  stored: readonly CachedInstance[],
  scaleSet: { capacity?: number } | undefined,
  now: number,
  settings: PlanSettings,
): Extract<RefreshPlan, { kind: 'list' }>['why'] | undefined {
  // Forced or not, nothing lists under ARM's Retry-After.
  if (settings.force) return (meta?.throttledUntil ?? 0) > now ? undefined : 'forced';
  if (meta?.lastRefresh === undefined) return 'never listed';
  if (meta.packs === undefined) return 'old format';
  if (isExpired({ lastRefresh: meta.lastRefresh, periodMs: settings.periodMs, jitterSec: settings.jitterSec }, now)) return 'expired';
  if (scaleSet?.capacity !== undefined && (meta.throttledUntil ?? 0) <= now && scaleSet.capacity !== present(meta, stored)) return 'capacity drift';
  return undefined;
}

/** The VMs ARM counts in its capacity: the cached ones not being deleted, and the unparseable ones. */
function present(meta: PlanMeta, stored: readonly CachedInstance[]): number {
  let n = meta.unparseable ?? 0;
  for (const i of stored) if (i.state !== 'Deleting') n++;
  return n;
}
