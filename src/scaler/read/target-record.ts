/**
 * A target's status row in the `targets` table, as plain data: the Active condition with its
 * last transition time and reason, desired and actual scale, when the activator was first seen
 * in front, the wake in progress and the last activation latency, panic bookkeeping, and the revision that fences reconciles (see
 * `target-store.ts`). The decisions read it; only the write stage stores it, through target-store.ts.
 */
import type { PanicState } from '../../load/decider.js';
import type { Condition, ConditionStatus, TargetConditions } from './conditions.js';
import { conditionsFromActive } from './conditions.js';
import { readJson } from './record-json.js';

export type TargetRecord = {
  activeStatus?: ConditionStatus;
  activeSince?: number;
  activeReason?: string;
  /** From the load, after rate limits; absent while no sample is in the window. */
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
  lastError?: string;
  /** Consecutive failed reads of the load source (KEDA's NumberOfFailures); absent at 0. */
  sourceFailures?: number;
  /** Several sources' consecutive failed reads, JSON `{ name: count }` of those above 0; absent when all answer. */
  sourceHealth?: string;
  /** Each failing source's last error, JSON `{ name: error }`; absent when all answer (status's `sources[].error`). */
  sourceErrors?: string;
  /** When each source's data was measured, JSON `{ name: epoch ms }`, for the kinds that say (azureMonitor): status's `sources[].measuredAt`. */
  sourceMeasuredAt?: string;
  /** When a source was last seen active (KEDA's lastActiveTime): a queue-driven target's cooldown counts from it. */
  lastActiveAt?: number;
  /** HPA behavior's recommendation and scale-event history, JSON, bounded (src/scaler/limit/hpa-history.ts). */
  behaviorHistory?: string;
  /** Knative scaleDownDelay's window of recent decisions, JSON. */
  delayWindow?: string;
  /** The adaptive policy's start-up delay: the raise being watched and the delays seen (src/scaler/recommend/adaptive.ts), JSON. */
  startupDelay?: string;
  /** The adaptive policy's per-minute load for its headroom, JSON, at most a few hours (src/scaler/recommend/adaptive-history.ts). */
  loadMinutes?: string;
  /**
   * The adaptive policy's forecast: each 5-minute bucket's mean load for eight days, JSON
   * `{ s, v }` (src/scaler/recommend/forecast.ts); kept only while `forecast.mode` is not off.
   */
  loadSeason?: string;
  /** The target has reached its initialScale once (Knative's ScaleTargetInitialized). */
  initialScaleReached?: boolean;
  reconciledAt?: number;
  /** When Drover first saw the target and adopted it as it ran. */
  adoptedAt?: number;
  /** `drover pause`: the whole target or one direction, optionally pinned at pausedReplicas. */
  pausedMode?: 'all' | 'scale-in' | 'scale-out';
  pausedReplicas?: number;
  pausedAt?: number;
  /** The rule that bound the last decision (src/scaler/read/bound-rules.ts). */
  boundBy?: string;
  /**
   * Bumped by every reconcile that writes the row: a reconcile writes only over the revision it
   * read, so a holder that lost its lease cannot overwrite a newer decision. The async probe's
   * merge of the activator sighting leaves it alone.
   */
  revision?: number;
  /** The configuration sequence and hash of the host that last wrote it (src/job/config-stamp.ts). */
  configSeq?: number;
  configHash?: string;
};

/** A field set to undefined in a patch is removed from the row. */
export type TargetRecordPatch = { [K in keyof TargetRecord]?: TargetRecord[K] | undefined };

/** The record after `patch`: fields set to undefined are removed. */
export function applyRecordPatch(current: TargetRecord | undefined, patch: TargetRecordPatch): TargetRecord {
  const out: TargetRecord = { ...current };
  for (const [key, value] of Object.entries(patch) as [keyof TargetRecord, TargetRecord[keyof TargetRecord]][]) {
    if (value === undefined) delete out[key];
    else (out as Record<string, unknown>)[key] = value;
  }
  return out;
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

/** The record's `sourceMeasuredAt`: when each source's data was measured, by name; a damaged text reads as none. */
export function measuredOf(record: Pick<TargetRecord, 'sourceMeasuredAt'> | undefined): Record<string, number> {
  const parsed = readJson<Record<string, unknown>>(record?.sourceMeasuredAt, {}, (v) => typeof v === 'object' && v !== null && !Array.isArray(v));
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => Number.isFinite(e[1])));
}
