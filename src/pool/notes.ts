/**
 * What status shows of a pool beyond its counts, as the last pass that planned saw it: the
 * autoscale hold, warnings about the scale set's own settings (overprovisioning), its terminate
 * notification, and why a scale-in stopped above the wanted count (protected VMs, VMs younger
 * than `scaleIn.minAge`). Kept in the `~notes`
 * bookkeeping row of the pool's inventory partition, so it is read with the partition (by the
 * pass and by status, no extra read) and written only when it changes (a steady pool writes none).
 */
import type { ScaleSetInfo, TerminateNotification } from '../azure/scale-set-api.js';
import type { Decision } from '../job/decision.js';
import type { EntityTable, Row } from '../state/entity-table.js';
import type { AutoscaleHold } from './autoscale-hold.js';

export const NOTES_KEY = '~notes';

/** The row's one property (the inventory's bookkeeping rows are all JSON). */
type NotesProps = { json: string };

export interface PoolNotes {
  /** Why nothing is written to the scale set. `since`: epoch ms, kept while the same setting holds. */
  hold?: { reason: string; setting?: string; since: number };
  warnings?: string[];
  /** The scale set's terminate notification; absent: none configured. */
  terminateNotification?: TerminateNotification;
  /** "4 protected VMs kept above the wanted 1". */
  keptAboveWanted?: string;
  /** Running VMs younger than `scaleIn.minAge` kept above the wanted count (absent: none). */
  heldByMinAge?: number;
}

export const OVERPROVISION_WARNING =
  'overprovisioning is on: on each scale-out ARM creates extra VMs and deletes them once enough run, so they come and go as churn; set overprovision to false on the scale set';

/** The line the scale-in plan (scale-in.ts) gives when protected VMs keep the pool above its wanted count. */
const KEPT_ABOVE = /^\d+ protected VMs kept above the wanted \d+$/;

export function notesOf(row: Row<NotesProps> | undefined): PoolNotes {
  if (!row) return {};
  try {
    return JSON.parse(row.props.json) as PoolNotes;
  } catch (err) {
    if (err instanceof SyntaxError) return {};
    throw err;
  }
}

/** The notes a planned pass leaves (pure). */
export function planNotes(input: { scaleSet: ScaleSetInfo; lines: readonly string[]; heldByMinAge?: number; hold: AutoscaleHold | undefined; previous: PoolNotes; now: number }): PoolNotes {
  const { scaleSet, hold, previous } = input;
  const notes: PoolNotes = {};
  if (hold) {
    const same = previous.hold !== undefined && previous.hold.reason === hold.reason;
    notes.hold = { reason: hold.reason, ...(hold.setting !== undefined ? { setting: hold.setting } : {}), since: same ? previous.hold!.since : input.now };
  }
  // A Flexible scale set has no overprovisioning (ARM refuses it there).
  if (scaleSet.overprovision === true && scaleSet.orchestrationMode !== 'Flexible') notes.warnings = [OVERPROVISION_WARNING];
  if (scaleSet.terminateNotification?.enabled) notes.terminateNotification = scaleSet.terminateNotification;
  const kept = input.lines.find((line) => KEPT_ABOVE.test(line));
  if (kept) notes.keptAboveWanted = kept;
  if (input.heldByMinAge !== undefined && input.heldByMinAge > 0) notes.heldByMinAge = input.heldByMinAge;
  return notes;
}

export const sameNotes = (a: PoolNotes, b: PoolNotes) => JSON.stringify(a) === JSON.stringify(b);

/** Warnings in `next` that `previous` did not have: these are logged, once. */
export const newWarnings = (previous: PoolNotes, next: PoolNotes) => (next.warnings ?? []).filter((w) => !(previous.warnings ?? []).includes(w));

/** Replaces the notes row (deleting it when there is nothing to note). Last writer wins: notes only inform. */
export async function writeNotes(table: EntityTable, pool: string, notes: PoolNotes): Promise<void> {
  if (Object.keys(notes).length === 0) await table.delete(pool, NOTES_KEY);
  else await table.upsert(pool, NOTES_KEY, { json: JSON.stringify(notes) } satisfies NotesProps);
}

/** The decision with each warning first noted in this pass, for the decision log. */
export function withWarnings(decision: Decision, warnings: readonly string[]): Decision {
  if (warnings.length === 0) return decision;
  return { ...decision, reason: [decision.reason, ...warnings.map((w) => `warning: ${w}`)].filter(Boolean).join('; ') };
}
