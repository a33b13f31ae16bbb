/**
 * Which timer occurrence each object was last taken for, one row per object in the `leases`
 * table. A pass takes an object for its occurrence before reconciling it; a pass of another
 * host for the same (or an older) occurrence finds it taken and moves on, so the hosts split
 * the fleet instead of each reconciling all of it. The lease still guards the reconcile
 * itself; this only stops the second reconcile after the first has released it.
 */
import type { EntityTable } from '../state/entity-table.js';
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

type ClaimProps = { occurrence: number; by: string };

export type OccurrenceClaim = { claimed: true } | { claimed: false; by: string; occurrence: number };

export async function claimOccurrence(table: EntityTable, objectKey: string, occurrence: number, holder: string): Promise<OccurrenceClaim> {
  let taken: ClaimProps | undefined;
  const result = await table.update<ClaimProps>(PARTITION, objectKey, (current) => {
    if (current && current.props.occurrence >= occurrence) {
      taken = current.props;
      return undefined;
    }
    taken = undefined;
    return { occurrence, by: holder };
  });
  if (result.changed) return { claimed: true };
  return { claimed: false, by: taken?.by ?? 'another host', occurrence: taken?.occurrence ?? occurrence };
}
