/**
 * A target's status row in the `targets` table (partition = target name): the Active
 * condition with its last transition time and reason, desired and actual scale, when the
 * activator was first seen in front, the wake in progress and the last activation latency,
 * panic bookkeeping and the recent capacity writes of a scale set target.
 *
 * Two writers share the row: the target's reconcile (under its lease) and the async probe
 * (which only records whether the activator answered). Both write through `patchTargetRecord`,
 * an ETag-guarded merge of the fields each one owns, so neither undoes the other.
 */
import type { EntityTable } from '../state/entity-table.js';
import type { PanicState } from '../load/decider.js';
import type { Condition, ConditionStatus, TargetConditions } from './conditions.js';
import { conditionsFromActive } from './conditions.js';
import { redact } from '../redact.js';

const ROW = 'status';

export type TargetRecord = {
  activeStatus?: ConditionStatus;
  activeSince?: number;
  activeReason?: string;
  /** From the load, after rate limits; -1 while no sample is in the window. */
  desiredScale?: number;
  /** Ready replicas (running instances of a scale set) when last seen. */
  actualScale?: number;
  /** The target's own scale (spec replicas, capacity) as Drover last left or saw it. */
  requestedScale?: number;
  /** When Drover last wrote the target's scale. */
  lastScaledAt?: number;
  activatorSeenSince?: number;
  wakeRequestedAt?: number;
  lastActivationLatencyMs?: number;
  lastActivationAt?: number;
  panicStartedAt?: number;
  panicLastOverAt?: number;
  panicMaxScale?: number;
  /** Times of the recent capacity writes of a scale set target, comma-separated. */
  capacityWrites?: string;
  lastError?: string;
  reconciledAt?: number;
};

/** A field set to undefined in a patch is removed from the row. */
export type TargetRecordPatch = { [K in keyof TargetRecord]?: TargetRecord[K] | undefined };

export async function readTargetRecord(table: EntityTable, target: string): Promise<TargetRecord | undefined> {
  return (await table.get<TargetRecord>(target, ROW))?.props;
}

/** Merges `patch` (computed from the current row) into it, under the row's ETag. */
export async function patchTargetRecord(
  table: EntityTable,
  target: string,
  patch: (current: TargetRecord | undefined) => TargetRecordPatch | undefined,
): Promise<void> {
  await table.update<TargetRecord>(target, ROW, (row) => {
    const changes = patch(row?.props);
    if (changes === undefined) return undefined;
    const merged: TargetRecord = { ...row?.props };
    for (const [key, value] of Object.entries(changes) as [keyof TargetRecord, TargetRecord[keyof TargetRecord]][]) {
      if (value === undefined) delete merged[key];
      else (merged as Record<string, unknown>)[key] = value;
    }
    // The status page shows lastError as is: a load or probe URL's token must not get there.
    if (merged.lastError !== undefined) merged.lastError = redact(merged.lastError);
    return merged;
  });
}

function activeConditionOf(record: TargetRecord | undefined): Condition | undefined {
  if (!record?.activeStatus) return undefined;
  const condition: Condition = { status: record.activeStatus, lastTransitionTime: record.activeSince ?? 0 };
  return record.activeReason === undefined ? condition : { ...condition, reason: record.activeReason };
}

export function conditionsOf(record: TargetRecord | undefined): TargetConditions {
  return conditionsFromActive(activeConditionOf(record));
}

export function conditionFields(conditions: TargetConditions): TargetRecordPatch {
  const active = conditions.active;
  return { activeStatus: active?.status, activeSince: active?.lastTransitionTime, activeReason: active?.reason };
}

export function panicOf(record: TargetRecord | undefined): PanicState | undefined {
  if (record?.panicStartedAt === undefined || record.panicLastOverAt === undefined) return undefined;
  return { startedAt: record.panicStartedAt, lastOverAt: record.panicLastOverAt, maxScale: record.panicMaxScale ?? 0 };
}

export function panicFields(panic: PanicState | undefined): TargetRecordPatch {
  return { panicStartedAt: panic?.startedAt, panicLastOverAt: panic?.lastOverAt, panicMaxScale: panic?.maxScale };
}
