/**
 * A target's whole decision for one reconcile, from plain data: its stored record, its load
 * samples, what was observed of it and its settings, at `now`.
 *
 *   first sight     → adopt it as it runs (no scale is decided): active once its ready
 *                     replicas reach max(minScale, 1), inactive at zero, activating in between
 *   otherwise       → desired scale from the samples (windows, rate limits, panic)
 *                     → planScale (bounds, scale to zero; asks for a synchronous probe)
 *
 * Like planScale it answers `{ kind: 'probe' }` when the synchronous activator probe is needed;
 * the caller probes and calls again with `probe` set.
 */
import type { TargetConfig } from '../../config/schema.js';
import { decideDesiredScale, type DeciderSettings, type DesiredInput, type DesiredScale } from '../../load/decider.js';
import { effectiveMinScale, type ScaleBounds } from './bounds.js';
import {
  ADOPTED_ACTIVATING,
  ADOPTED_ACTIVE,
  ADOPTED_AT_ZERO,
  markActivating,
  markActive,
  markInactive,
  type TargetConditions,
} from './conditions.js';
import { planScale, type Desired } from './plan-scale.js';
import { type ScalePlan, type ScaleToZeroSettings, type SyncProbeResult } from './scale-to-zero.js';
import { conditionsOf, panicOf, type TargetRecord } from './target-record.js';

/** After adopting a target, the next reconcile decides on it this soon. */
export const ADOPTION_REQUEUE_MS = 1_000;

export interface TargetSettings {
  bounds: ScaleBounds;
  scaleToZero: ScaleToZeroSettings;
  desired: DeciderSettings;
}

/** A target's settings as the decisions take them. */
/** `targetPerReplica` comes from the load source (1 for a target without one). */
export function targetSettings(target: TargetConfig, targetPerReplica: number): TargetSettings {
  const stableWindowMs = target.scaleToZero.stableWindow;
  return {
    bounds: { minScale: target.minScale, maxScale: target.maxScale },
    scaleToZero: {
      enableScaleToZero: target.scaleToZero.enabled,
      stableWindowMs,
      gracePeriodMs: target.scaleToZero.gracePeriod,
      activationTimeoutMs: target.activationTimeout,
    },
    desired: {
      targetPerReplica,
      stableWindowMs,
      maxScaleUpRate: target.maxScaleUpRate,
      maxScaleDownRate: target.maxScaleDownRate,
      panic: { enabled: target.panic.enabled, windowMs: target.panic.window ?? stableWindowMs / 10, thresholdPercent: target.panic.threshold },
    },
  };
}

/** The target as seen now (or, when it could not be read, as last stored). */
export interface Observation {
  /** Its own scale: spec replicas or capacity (a workload without one runs 1). */
  scale: number;
  /** Ready replicas, running instances. */
  ready: number;
}

export interface TargetDecisionInput {
  record: TargetRecord | undefined;
  /** The target's load samples: a `SampleWindow`, an array, or anything with its `average`. */
  samples: DesiredInput['samples'];
  /** The source is a gauge (push): an empty window reads as its last value. */
  holdLatest: boolean;
  observation: Observation;
  settings: TargetSettings;
  /** The synchronous probe's answer, once a first call asked for it. */
  probe?: SyncProbeResult;
  now: number;
}

export interface TargetDecided {
  kind: 'decided';
  desired: DesiredScale;
  /** The conditions the plan was made on: the stored ones, or the adoption's. */
  conditions: TargetConditions;
  /** This reconcile adopted the target (first sight): nothing is written to it. */
  adopted: boolean;
  plan: ScalePlan;
}

export type TargetDecision = { kind: 'probe' } | TargetDecided;

export function decideTarget(input: TargetDecisionInput): TargetDecision {
  const { record, observation, settings, now } = input;
  const desired = decideDesiredScale({
    samples: input.samples,
    holdLatest: input.holdLatest,
    readyReplicas: observation.ready,
    panic: settings.desired.panic.enabled ? panicOf(record) : undefined,
    settings: settings.desired,
    now,
  });
  if (record?.activeStatus === undefined) {
    const conditions = adopt(observation, settings.bounds, now);
    return { kind: 'decided', desired, conditions, adopted: true, plan: adoptionPlan() };
  }
  const conditions = conditionsOf(record);
  const step = planScale({
    desired: desiredOf(desired),
    bounds: settings.bounds,
    conditions,
    settings: settings.scaleToZero,
    activatorSeenSince: record.activatorSeenSince ?? null,
    ...(input.probe ? { probe: input.probe } : {}),
    currentScale: observation.scale,
    now,
  });
  if (step.kind === 'probe') return step;
  return { kind: 'decided', desired, conditions, adopted: false, plan: step.plan };
}

export function desiredOf(desired: DesiredScale): Desired {
  return desired.kind === 'known' ? { kind: 'known', scale: desired.desired } : { kind: 'unknown' };
}

/**
 * A running workload is taken over as it is: Drover's first look decides its Active condition
 * from what is ready, never a scale.
 */
export function adopt(observation: Observation, bounds: ScaleBounds, now: number): TargetConditions {
  if (observation.ready >= Math.max(effectiveMinScale(bounds), 1)) return markActive({}, now, ADOPTED_ACTIVE);
  if (observation.scale === 0 && observation.ready === 0) return markInactive({}, now, ADOPTED_AT_ZERO);
  return markActivating({}, now, ADOPTED_ACTIVATING);
}

function adoptionPlan(): ScalePlan {
  return { kind: 'hold', reason: 'adopted', requeueAfterMs: [ADOPTION_REQUEUE_MS], offerAsyncProbe: false };
}
