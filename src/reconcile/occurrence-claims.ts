/**
 * Which timer occurrence each object was last taken for, carried on its lease row (state/leases.ts):
 * a timer pass takes an object's lease and its occurrence in one conditional write; a pass of
 * another host for the same (or an older) occurrence finds it taken and moves on, so the hosts
 * split the fleet instead of each reconciling all of it. A lease given up keeps its claim (the
 * row stays, released), so the second reconcile is stopped after the first has finished too.
 *
 * Occurrences are compared on the storage service's clock, never one host's against another's
 * (service-clock.ts): a claim is stored as how far ahead of its writer's own now the occurrence
 * was (its lead, clamped to [0, MAX_LEAD_MS]), and placed on the service's clock at the row's
 * Timestamp plus that lead. So a host whose clock is an hour ahead claims the occurrence it is
 * really at, not one an hour away. Every rewrite of the row (a renewal, the release, another
 * pass taking the lease) stores the lead again, so the claim keeps its place.
 */
import type { Props } from '../state/entity-table.js';
import type { ServiceClock, TimedRow } from '../state/service-clock.js';

/**
 * Claims for one occurrence land this close together on the service's clock (its Date header
 * has whole seconds), or within half their lead when that is less.
 */
export const SAME_OCCURRENCE_MS = 2_000;
/** A claim reaches at most this far ahead: a clock that jumped back mid-pass blocks others no longer. */
export const MAX_LEAD_MS = 5 * 60_000;

/** The claim a lease carries: the occurrence, who claimed it, and when it is on the carrier's own clock. */
export interface CarriedClaim {
  occurrence: number;
  by: string;
  /** The claimed instant on the clock of the host carrying the lease (its lead is `at` − its now). */
  at: number;
}

export type ClaimProps = { occurrence: number; by: string; leadMs: number };

const leadOf = (ms: number) => Math.min(MAX_LEAD_MS, Math.max(0, ms));

/** The claim's properties for a write of the lease row at `now` (the writer's clock). */
export function claimProps(claim: CarriedClaim | undefined, now: number): Partial<ClaimProps> {
  return claim ? { occurrence: claim.occurrence, by: claim.by, leadMs: leadOf(claim.at - now) } : {};
}

/** The claim a row read carries, placed on the reader's clock (`now`) through the service's. */
export function carriedClaim(service: ServiceClock, read: TimedRow<Props>, now: number): CarriedClaim | undefined {
  const { occurrence, by, leadMs } = read.row.props;
  if (typeof occurrence !== 'number') return undefined;
  const times = service.times(read);
  const placed = times.writtenAt + leadOf(Number(leadMs ?? 0));
  return { occurrence, by: String(by ?? 'another host'), at: now + (placed - times.now) };
}

/**
 * Whether the row read holds a claim for the occurrence at `occurrence` (on the claimant's
 * clock, `now`) or a later one: then the claimant leaves the object alone.
 */
export function claimTaken(service: ServiceClock, read: TimedRow<Props>, occurrence: number, now: number): boolean {
  if (typeof read.row.props.occurrence !== 'number') return false;
  const times = service.times(read);
  const theirs = times.writtenAt + leadOf(Number(read.row.props.leadMs ?? 0));
  const lead = leadOf(occurrence - now);
  // Half the lead at most, so that the next occurrence of a schedule of seconds is never "the same".
  return theirs >= times.now + lead - Math.min(SAME_OCCURRENCE_MS, lead / 2);
}
