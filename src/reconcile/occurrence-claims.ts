/**
 * Which timer occurrence each object was last taken for, one row per object in the `leases`
 * table. A pass takes an object for its occurrence before reconciling it; a pass of another
 * host for the same (or an older) occurrence finds it taken and moves on, so the hosts split
 * the fleet instead of each reconciling all of it. The lease still guards the reconcile
 * itself; this only stops the second reconcile after the first has released it.
 */
import type { Leases } from '../state/leases.js';
import { nextOccurrence } from '../host/schedule.js';

/**
 * What names the occurrence a timer invocation runs for, the same on every host: the scheduled
 * instant of the next one. The host's schedule status gives it (the local host always, the
 * Functions host with its schedule monitor); without one it is computed from `schedule`.
 */
export function timerOccurrence(timer: { scheduleStatus?: { next?: string } }, schedule: string, now: number): number {
  const next = timer.scheduleStatus?.next === undefined ? NaN : Date.parse(timer.scheduleStatus.next);
  return Number.isFinite(next) ? next : nextOccurrence(schedule, now);
}

const PARTITION = 'occurrence';

/**
 * Claims for one occurrence land this close together on the service's clock (its Date header
 * has whole seconds), or within half their lead when that is less.
 */
export const SAME_OCCURRENCE_MS = 2_000;
/** A claim reaches at most this far ahead: a clock that jumped back mid-pass blocks others no longer. */
export const MAX_LEAD_MS = 5 * 60_000;

type ClaimProps = { occurrence: number; by: string; leadMs: number };

export type OccurrenceClaim = { claimed: true } | { claimed: false; by: string; occurrence: number };

/**
 * Takes `objectKey` for the occurrence at `occurrence` on the claimant's clock, unless a claim
 * for the same (or a later) occurrence is there. Occurrences are compared on the storage
 * service's clock, never one host's against another's: a claim is stored as how far ahead of
 * its writer's own now the occurrence was (its lead, clamped to [0, MAX_LEAD_MS]), and placed on
 * the service's clock at the row's Timestamp plus that lead. So a host whose clock is an hour
 * ahead claims the occurrence it is really at, not one an hour away.
 */
export async function claimOccurrence(
  leases: Pick<Leases, 'table' | 'clock' | 'service'>,
  objectKey: string,
  occurrence: number,
  holder: string,
): Promise<OccurrenceClaim> {
  const leadMs = Math.min(MAX_LEAD_MS, Math.max(0, occurrence - leases.clock.now()));
  const props = { occurrence, by: holder, leadMs, ...leases.service.stamp() } as ClaimProps;
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await leases.table.getTimed<ClaimProps>(PARTITION, objectKey);
    if (current) {
      const { writtenAt, now } = leases.service.times(current);
      const theirs = writtenAt + Math.min(MAX_LEAD_MS, Math.max(0, Number(current.row.props.leadMs ?? 0)));
      // Half the lead at most, so that the next occurrence of a schedule of seconds is never "the same".
      if (theirs >= now + leadMs - Math.min(SAME_OCCURRENCE_MS, leadMs / 2)) return { claimed: false, by: current.row.props.by, occurrence: current.row.props.occurrence };
    }
    const written = current ? await leases.table.replaceIf(current.row, props) : await leases.table.create(PARTITION, objectKey, props);
    if (written) return { claimed: true };
  }
  return { claimed: false, by: 'another host', occurrence };
}
