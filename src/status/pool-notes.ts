/**
 * The pool notes (src/pool/notes.ts) as `drover status` and the status page show them: the
 * autoscale hold, warnings, the terminate notification and why scale-in stopped above the wanted
 * count. Field names are only ever added to.
 */
import type { Row } from '../state/entity-table.js';
import type { JsonProps } from '../pool/inventory.js';
import { notesOf } from '../pool/notes.js';
import { iso } from './time.js';

export interface PoolNotesStatus {
  /** Why nothing is written to the scale set (an enabled autoscale setting sizes it), and since when. */
  hold: { reason: string; setting: string | null; since: string } | null;
  /** About the scale set's own settings (overprovisioning). */
  warnings: string[];
  /**
   * `scheduledEventsProfile.terminateNotificationProfile`: whether a VM Drover deletes gets a
   * Terminate scheduled event first, and how long before. `null` until a pass has read the scale set.
   */
  terminateNotification: { enabled: boolean; notBeforeTimeout: string | null } | null;
  /** "4 protected VMs kept above the wanted 1". */
  keptAboveWanted: string | null;
  /** Running VMs younger than `scaleIn.minAge` the last pass kept above the wanted count (0: none). */
  heldByMinAge: number;
}

/** `read`: a pass has read the scale set (its cache exists), so absent notes mean "none". */
export function poolNotesStatus(row: Row<JsonProps> | undefined, read: boolean): PoolNotesStatus {
  const notes = notesOf(row);
  const terminate = notes.terminateNotification;
  return {
    hold: notes.hold ? { reason: notes.hold.reason, setting: notes.hold.setting ?? null, since: iso(notes.hold.since)! } : null,
    warnings: notes.warnings ?? [],
    terminateNotification: terminate ? { enabled: terminate.enabled, notBeforeTimeout: terminate.notBeforeTimeout ?? null } : read ? { enabled: false, notBeforeTimeout: null } : null,
    keptAboveWanted: notes.keptAboveWanted ?? null,
    heldByMinAge: notes.heldByMinAge ?? 0,
  };
}

/** A pool with nothing noted, before any pass read its scale set. */
export const NO_POOL_NOTES: PoolNotesStatus = Object.freeze({ hold: null, warnings: [], terminateNotification: null, keptAboveWanted: null, heldByMinAge: 0 });

/** The minAge hold in the same words for `drover status` and the page. */
export const heldByMinAgeText = (n: number) => `scale-in: ${n} running VM(s) younger than scaleIn.minAge kept above the wanted count (boundBy: MinAge)`;

/** The same words for `drover status` and the page. */
export function terminateNotificationText(t: NonNullable<PoolNotesStatus['terminateNotification']>): string {
  if (!t.enabled) return 'terminate notification: off (a VM is deleted without a Terminate scheduled event first)';
  return `terminate notification: on (a VM gets a Terminate scheduled event ${t.notBeforeTimeout ? `${t.notBeforeTimeout} ` : ''}before it is deleted)`;
}
